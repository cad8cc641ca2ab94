#!/usr/bin/env bash
# The Debian packages the bundled genomics apps (apps/) and their tests need: samtools, bcftools,
# bwa, minimap2, tabix (bgzip, tabix), seqtk and fastp; and curl (the url_fetcher app). Idempotent: a no-op (a few `command -v`
# checks) when every tool is on PATH; otherwise installs the missing packages with apt, updating the
# package lists only if the first attempt fails. Never downloads anything but Debian packages.
# Exit status: 0 when every tool is present afterwards, 1 otherwise (callers decide whether to go on).
set -euo pipefail

# tool → Debian package
declare -A PACKAGE_OF=(
  [samtools]=samtools [bcftools]=bcftools [bwa]=bwa [minimap2]=minimap2
  [tabix]=tabix [bgzip]=tabix [seqtk]=seqtk [fastp]=fastp [curl]=curl
)
missing=()
for tool in samtools bcftools bwa minimap2 tabix bgzip seqtk fastp curl; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${PACKAGE_OF[$tool]}")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
mapfile -t packages < <(printf '%s\n' "${missing[@]}" | sort -u)

if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-bio-tools: missing ${packages[*]} and this is not root; install the Debian packages: apt-get install ${packages[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-bio-tools: missing ${packages[*]} and apt-get is not available" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "ensure-bio-tools: installing ${packages[*]}" >&2
apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null 2>&1 || {
  apt-get update >/dev/null 2>&1 || true
  apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null
}
for tool in samtools bcftools bwa minimap2 tabix bgzip seqtk fastp curl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "ensure-bio-tools: $tool is still missing" >&2; exit 1; }
done
