"""nvImageCodec through its C API: the declarations (`capi`), the binding that decodes a batch
without holding the interpreter lock (`binding`), the CPU region decoder (`cpu`) and the mixed
backend's batch decoding into device memory (`mixed`)."""
