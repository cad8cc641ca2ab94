#!/bin/bash
# seqtk_sample: random subset of reads with seqtk sample, mates kept together (see ../README.md).

# The output name: the input's name with .sampled before the extension, always gzipped.
sampled_name() {
    local name=$1
    local kind=fastq
    case "$name" in
        *.fasta.gz | *.fa.gz | *.fasta | *.fa) kind=fasta ;;
    esac
    name=${name%.gz}
    name=${name%.*}
    printf '%s.sampled.%s.gz' "$name" "$kind"
}

main() {
    set -e -o pipefail

    if [ -n "${fraction:-}" ] && [ -n "${number_of_reads:-}" ]; then
        dx-jobutil-report-error "Give fraction or number_of_reads, not both" AppError
    fi
    local size
    if [ -n "${fraction:-}" ]; then
        if ! awk -v f="$fraction" 'BEGIN { exit !(f > 0 && f < 1) }'; then
            dx-jobutil-report-error "fraction must be between 0 and 1 (exclusive), not $fraction" AppError
        fi
        size=$fraction
    elif [ -n "${number_of_reads:-}" ]; then
        if [ "$number_of_reads" -lt 1 ]; then
            dx-jobutil-report-error "number_of_reads must be 1 or more, not $number_of_reads" AppError
        fi
        size=$number_of_reads
    else
        dx-jobutil-report-error "Give fraction or number_of_reads" AppError
    fi

    dx-download-all-inputs --parallel
    local seed=${seed:-11}

    local out1 out2=""
    out1="$HOME/out/sampled_reads/$(sampled_name "$reads_name")"
    if [ -n "${reads2:-}" ]; then
        out2="$HOME/out/sampled_reads2/$(sampled_name "$reads2_name")"
        if [ "$(basename "$out2")" = "$(basename "$out1")" ]; then
            dx-jobutil-report-error "reads and reads2 have the same file name ('$reads_name'); rename one of them" AppError
        fi
    fi

    # Both files at once (seqtk is single-threaded); the same seed keeps the mates in step.
    mkdir -p "$(dirname "$out1")"
    echo "seqtk sample -s $seed $reads_name $size"
    seqtk sample -s "$seed" "$reads_path" "$size" | gzip -c > "$out1" &
    local pid1=$! pid2=""
    if [ -n "$out2" ]; then
        mkdir -p "$(dirname "$out2")"
        echo "seqtk sample -s $seed $reads2_name $size"
        seqtk sample -s "$seed" "$reads2_path" "$size" | gzip -c > "$out2" &
        pid2=$!
    fi
    wait "$pid1"
    if [ -n "$pid2" ]; then wait "$pid2"; fi

    dx-upload-all-outputs --parallel
}
