#!/bin/bash
# samtools_sort_index: sorts a BAM/SAM, indexes it and reports flagstat (see ../README.md).

main() {
    set -e -o pipefail

    dx-download-all-inputs

    local threads
    threads=$(nproc)
    # samtools sort -m is per thread: half of the memory, shared by the threads, between 256 MB and 4 GB.
    local memory=${memory_per_thread_mb:-}
    if [ -z "$memory" ]; then
        local total_kb
        total_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
        memory=$(( total_kb / 1024 / 2 / threads ))
        if [ "$memory" -gt 4096 ]; then memory=4096; fi
        if [ "$memory" -lt 256 ]; then memory=256; fi
    fi

    local name=${bam_prefix%.sorted}
    mkdir -p "$HOME/out/sorted_bam" "$HOME/out/flagstat" "$HOME/work"
    local sorted="$HOME/out/sorted_bam/${name}.sorted.bam"
    local order=()
    if [ "${sort_by_name:-false}" = "true" ]; then order=(-n); fi
    echo "samtools sort ${order[*]} -@ $threads -m ${memory}M $bam_name"
    samtools sort "${order[@]}" -@ "$threads" -m "${memory}M" -T "$HOME/work/sort" -o "$sorted" "$bam_path"

    if [ "${sort_by_name:-false}" != "true" ]; then
        mkdir -p "$HOME/out/bam_index"
        samtools index -@ "$threads" "$sorted" "$HOME/out/bam_index/${name}.sorted.bam.bai"
    fi
    samtools flagstat -@ "$threads" "$sorted" > "$HOME/out/flagstat/${name}.flagstat.txt"
    cat "$HOME/out/flagstat/${name}.flagstat.txt"
    local mapped
    mapped=$(samtools view -c -F 0x904 -@ "$threads" "$sorted")

    dx-upload-all-outputs --parallel
    dx-jobutil-add-output mapped_reads "$mapped" --class=int
}
