

def test_complex_eye():
    for dtype in [torch.complex64, torch.complex128]:
        close(ember.eye(3, 4, dtype=getattr(ember, str(dtype).split(".")[1])), torch.eye(3, 4, dtype=dtype))
