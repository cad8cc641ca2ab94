#!/bin/bash
# minimap2: maps reads to a reference into a BAM (see ../README.md).

# The sample name a reads file name suggests: sample1_R1.trimmed.fastq.gz → sample1.
sample_from_prefix() {
    local name=$1
    name=${name%.trimmed}
    name=${name%.fastq}
    name=${name%.fq}
    name=${name%_R1}
    name=${name%_R1_001}
    name=${name%_1}
    name=${name%.R1}
    printf '%s' "$name"
}

main() {
    set -e -o pipefail

    dx-download-all-inputs --parallel

    local threads
    threads=$(nproc)
    local sample=${sample_name:-$(sample_from_prefix "$reads_prefix")}
    local rg_id=${read_group_id:-$sample}
    local args=(-a -x "${preset:-sr}" -t "$threads" -R "@RG\tID:${rg_id}\tSM:${sample}\tPL:${read_group_platform:-ILLUMINA}\tLB:${sample}")
    # shellcheck disable=SC2206
    if [ -n "${extra_options:-}" ]; then args+=($extra_options); fi
    local reads_files=("$reads_path")
    if [ -n "${reads2:-}" ]; then reads_files+=("$reads2_path"); fi

    mkdir -p "$HOME/out/bam"
    local bam="$HOME/out/bam/${sample}.bam"
    echo "minimap2 ${args[*]} $reference_name ${reads_files[*]} | samtools view -b"
    minimap2 "${args[@]}" "$reference_path" "${reads_files[@]}" | samtools view -b -@ "$threads" -o "$bam" -
    samtools quickcheck "$bam"

    dx-upload-all-outputs --parallel
}
