{
  "targets": [
    {
      "target_name": "allocation_lens_memory",
      "sources": ["src/memory.cc"],
      "cflags_cc": ["-O2"]
    }
  ]
}
