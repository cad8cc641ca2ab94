#!/bin/bash
# bcftools_call: bcftools mpileup | bcftools call → bgzip → tabix (see ../README.md).

main() {
    set -e -o pipefail

    dx-download-all-inputs --parallel

    local threads
    threads=$(nproc)
    local work="$HOME/work"
    mkdir -p "$work"

    # The reference, uncompressed and indexed next to it (a plain gzip is not enough for faidx).
    local fasta="$work/reference.fa"
    case "$reference_name" in
        *.gz) gzip -dc "$reference_path" > "$fasta" ;;
        *) ln -s "$reference_path" "$fasta" ;;
    esac
    samtools faidx "$fasta"

    # The BAM with its index beside it, as mpileup looks for <bam>.bai.
    local bam="$work/$sorted_bam_name"
    ln -s "$sorted_bam_path" "$bam"
    if [ -n "${bam_index:-}" ]; then
        ln -s "$bam_index_path" "$bam.bai"
    else
        samtools index "$bam"
    fi

    local prefix=${output_prefix:-${sorted_bam_prefix%.sorted}}
    mkdir -p "$HOME/out/vcf" "$HOME/out/vcf_index"
    local vcf="$HOME/out/vcf/${prefix}.vcf.gz"

    local mpileup=(-f "$fasta" -q "${min_mapping_quality:-0}" -Q "${min_base_quality:-13}" -a AD,DP -Ou)
    if [ -n "${regions:-}" ]; then mpileup+=(-r "$regions"); fi
    local call=(-m -Ov)
    if [ "${variants_only:-true}" = "true" ]; then call+=(-v); fi
    echo "bcftools mpileup ${mpileup[*]} $sorted_bam_name | bcftools call ${call[*]} | bgzip"
    bcftools mpileup "${mpileup[@]}" "$bam" | bcftools call "${call[@]}" | bgzip -@ "$threads" > "$vcf"
    tabix -p vcf "$vcf"
    mv "$vcf.tbi" "$HOME/out/vcf_index/"

    local count
    count=$(bcftools view -H "$vcf" | wc -l)
    echo "variant records: $count"

    dx-upload-all-outputs --parallel
    dx-jobutil-add-output variant_count "$count" --class=int
}
