#!/bin/sh
# podman schedules container healthchecks with systemd timers; without systemd they never run and
# `depends_on: condition: service_healthy` would wait forever. This runs them every 2 seconds.
while :; do
  for id in $(podman ps -q --filter health=starting; podman ps -q --filter health=healthy; podman ps -q --filter health=unhealthy); do
    podman healthcheck run "$id" >/dev/null 2>&1 &
  done
  wait
  sleep 2
done
