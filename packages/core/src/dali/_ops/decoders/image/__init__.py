"""The image decoders: ``fn.decoders.image`` (`decoder`), its fused crop variants (`crops`),
``fn.peek_image_shape``; the CPU codecs (`codecs`), the mixed backend's host planning
(`mixed_plan`) and its conversion to the output type on the GPU (`to_output_gpu`)."""
