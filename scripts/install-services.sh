#!/usr/bin/env bash
# Installs the binaries the system backend (`mqlab up --backend system`) runs: Debian's rabbitmq-server and postgresql packages.
# mqlab never uses the system services these packages may start; it runs a private RabbitMQ node
# and a private PostgreSQL cluster under .mqlab/ on its own ports.
# As root it installs with apt-get; otherwise it prints the exact command to run.
set -euo pipefail

need=()
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || command -v rabbitmq-server >/dev/null 2>&1 || need+=(rabbitmq-server)
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || need+=(postgresql)

if [ ${#need[@]} -eq 0 ]; then
  echo "install-services: rabbitmq-server and postgresql are installed"
  exit 0
fi

cmd="apt-get install -y --no-install-recommends ${need[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-services: missing ${need[*]}; install them with:" >&2
  echo "  sudo apt-get update && sudo $cmd" >&2
  exit 2
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-services: missing ${need[*]} and no apt-get here; install RabbitMQ and PostgreSQL, or use Docker (mqlab up --backend docker)" >&2
  exit 2
fi

echo "install-services: installing ${need[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
# Packages may try to start their system services; keep them from doing so (no collision, no waste).
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && created_policy=1
fi
trap '[ "$created_policy" = 1 ] && rm -f "$policy"' EXIT
# another apt-get (not mqlab's: mqlab installs one at a time) may hold the package lists' lock:
# wait for it up to 5 min, as apt-get install waits for dpkg's lock
for try in $(seq 60); do
  if out=$(apt-get update -q 2>&1); then break; fi
  if ! grep -q 'Could not get lock' <<< "$out" || [ "$try" = 60 ]; then echo "$out" >&2; exit 1; fi
  [ "$try" = 1 ] && echo "install-services: another apt-get holds the package lists; waiting for it (up to 5 min)"
  sleep 5
done
apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${need[@]}" >/dev/null
echo "install-services: installed ${need[*]}"
