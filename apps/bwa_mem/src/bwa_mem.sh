#!/bin/bash
# bwa_mem: maps reads to a reference with BWA-MEM into a BAM (see ../README.md).

# The sample name a FASTQ file name suggests: sample1_R1.trimmed.fastq.gz → sample1.
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

    if [ -z "${reference:-}" ] && [ -z "${reference_index:-}" ]; then
        dx-jobutil-report-error "Give either 'reference' (a FASTA file) or 'reference_index' (a BWA index tarball)" AppError
    fi
    dx-download-all-inputs --parallel

    local threads
    threads=$(nproc)
    local work="$HOME/work"
    mkdir -p "$work/index"

    # The index: unpacked from the tarball, or built from the FASTA (bwa index reads .gz as well).
    local index
    if [ -n "${reference_index:-}" ]; then
        echo "unpacking the BWA index $reference_index_name"
        tar -xzf "$reference_index_path" -C "$work/index"
        local bwt
        bwt=$(find "$work/index" -name '*.bwt' | head -n 1)
        if [ -z "$bwt" ]; then
            dx-jobutil-report-error "$reference_index_name holds no BWA index (no .bwt file)" AppError
        fi
        index=${bwt%.bwt}
    else
        index="$work/index/$reference_name"
        ln -s "$reference_path" "$index"
        echo "indexing $reference_name"
        bwa index "$index"
    fi

    local sample=${sample_name:-$(sample_from_prefix "$reads_prefix")}
    local rg_id=${read_group_id:-$sample}
    local library=${read_group_library:-$sample}
    local read_group="@RG\tID:${rg_id}\tSM:${sample}\tPL:${read_group_platform:-ILLUMINA}\tLB:${library}"

    local args=(-t "$threads" -R "$read_group")
    if [ "${mark_shorter_splits_secondary:-false}" = "true" ]; then args+=(-M); fi
    # shellcheck disable=SC2206
    if [ -n "${extra_options:-}" ]; then args+=($extra_options); fi
    local fastqs=("$reads_path")
    if [ -n "${reads2:-}" ]; then fastqs+=("$reads2_path"); fi

    mkdir -p "$HOME/out/bam"
    local bam="$HOME/out/bam/${sample}.bam"
    echo "bwa mem ${args[*]} $index ${fastqs[*]} | samtools view -b"
    bwa mem "${args[@]}" "$index" "${fastqs[@]}" | samtools view -b -@ "$threads" -o "$bam" -
    samtools quickcheck "$bam"

    dx-upload-all-outputs --parallel
}
