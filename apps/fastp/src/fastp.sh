#!/bin/bash
# fastp: read QC and trimming, single or paired-end (see ../README.md).
# Runs on DNAnexus and on Panx alike: inputs come in through dx-download-all-inputs and the
# variables reads_path/reads_prefix/..., outputs go out through out/<field>/ and dx-upload-all-outputs.

main() {
    set -e -o pipefail

    echo "reads: '$reads_name'${reads2:+, reads2: '$reads2_name'}"
    dx-download-all-inputs --parallel

    # fastp uses at most 16 worker threads.
    local threads
    threads=$(nproc)
    if [ "$threads" -gt 16 ]; then threads=16; fi

    mkdir -p "$HOME/out/trimmed_reads" "$HOME/out/html_report" "$HOME/out/json_report"
    local name=${reads_prefix%_R1}
    name=${name%_1}
    local trimmed="$HOME/out/trimmed_reads/${reads_prefix}.trimmed.fastq.gz"
    local args=(
        --in1 "$reads_path" --out1 "$trimmed"
        --qualified_quality_phred "${qualified_quality_phred:-15}"
        --length_required "${length_required:-15}"
        --html "$HOME/out/html_report/${name}.fastp.html"
        --json "$HOME/out/json_report/${name}.fastp.json"
        --report_title "fastp report: ${name}"
        --thread "$threads"
    )
    local trimmed2=""
    if [ -n "${reads2:-}" ]; then
        if [ "$reads2_prefix" = "$reads_prefix" ]; then
            dx-jobutil-report-error "reads and reads2 have the same name prefix ('$reads_prefix'); rename one of the files" AppError
        fi
        mkdir -p "$HOME/out/trimmed_reads2"
        trimmed2="$HOME/out/trimmed_reads2/${reads2_prefix}.trimmed.fastq.gz"
        args+=(--in2 "$reads2_path" --out2 "$trimmed2")
        if [ "${detect_adapter_for_pe:-true}" = "true" ]; then args+=(--detect_adapter_for_pe); fi
    fi
    # Word splitting of the extra options is intended.
    # shellcheck disable=SC2206
    if [ -n "${extra_options:-}" ]; then args+=($extra_options); fi

    # fastp takes about 1 GB of memory whatever the input size: on hosts shared by several jobs
    # (Panx's local executor) one fastp runs at a time. On a worker of its own the lock is free.
    # /tmp, not TMPDIR, which may be private to the job; no lock if the file cannot be opened.
    if { exec 9>>/tmp/fastp.lock; } 2>/dev/null && command -v flock >/dev/null 2>&1; then
        flock -n 9 || { echo "waiting for another fastp run on this host to finish"; flock 9; }
    fi
    echo "fastp ${args[*]}"
    fastp "${args[@]}"
    exec 9>&- || true

    local passed
    passed=$(( $(gzip -dc "$trimmed" | wc -l) / 4 ))
    if [ -n "$trimmed2" ]; then passed=$(( passed + $(gzip -dc "$trimmed2" | wc -l) / 4 )); fi
    echo "reads passed: $passed"

    dx-upload-all-outputs --parallel
    dx-jobutil-add-output reads_passed "$passed" --class=int
}
