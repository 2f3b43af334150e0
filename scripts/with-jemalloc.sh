#!/bin/sh
# Runs a command on jemalloc when the library is installed (npm start uses it). glibc's malloc keeps
# what LanceDB's maintenance frees, so a process that keeps ingesting grows for as long as it runs;
# on jemalloc it levels off (bench/results/load-soak-30min*.md). The service logs which allocator it
# got. DOCSLURP_ALLOCATOR=system keeps the system's allocator.
#
#   sh scripts/with-jemalloc.sh node packages/service/dist/cli.js serve
case "${LD_PRELOAD:-}" in *jemalloc*) exec "$@" ;; esac
if [ "${DOCSLURP_ALLOCATOR:-}" != system ]; then
  for lib in /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 \
    /usr/lib64/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 /usr/local/lib/libjemalloc.so.2; do
    if [ -r "$lib" ]; then
      LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}"
      export LD_PRELOAD
      break
    fi
  done
fi
exec "$@"
