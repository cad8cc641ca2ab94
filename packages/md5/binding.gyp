{
  "targets": [
    {
      "target_name": "md5_lanes",
      "sources": ["native/md5_lanes.c"],
      "cflags": ["-O3", "-std=gnu11"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O3"] }
    }
  ]
}
