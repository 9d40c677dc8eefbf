"""What the Python benchmark scripts share: both libraries on one intra-op thread, and the
command line's optional substring choosing which figures run."""
import sys

import ember
import torch


def run(benches):
    ember.set_num_threads(1)
    torch.set_num_threads(1)
    pattern = sys.argv[1] if len(sys.argv) > 1 else ""
    for name, fn in benches.items():
        if pattern in name:
            fn()
