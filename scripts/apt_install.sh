#!/usr/bin/env bash
# Installs the Debian packages named that are not installed yet, and nothing when all
# are (the test scripts call it on every run). A dpkg left half-way by an earlier,
# interrupted install is finished first, and a lock held by another apt waits, so a
# CI machine in either state still installs.
set -euo pipefail

missing=()
for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
((${#missing[@]})) || exit 0

echo "installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
lock=(-o DPkg::Lock::Timeout=600)
"${sudo_cmd[@]}" dpkg --configure -a
"${sudo_cmd[@]}" apt-get "${lock[@]}" update -qq
"${sudo_cmd[@]}" apt-get "${lock[@]}" install -y -qq "${missing[@]}"
