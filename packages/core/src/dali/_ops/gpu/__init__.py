"""What the operators' GPU backends share: the CuPy kernel toolkit (`kernels`: one launch
per batch, per-sample structs in one upload, outputs carved out of one buffer)."""
