// Header-only target: declares LLVMFuzzerRunDriver, which libFuzzer provides at link time.
