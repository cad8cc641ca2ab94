#!/bin/bash
# url_fetcher: one URL into the project as a file (see ../README.md).

# The URL with any user:password@ removed, for messages.
redacted() {
    printf '%s' "$1" | sed -E 's#^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@]*@#\1#'
}

# The last path segment of a URL, percent-decoded, without query or fragment; empty when there is none.
name_from_url() {
    local path=${1%%[?#]*}
    path=${path#*://}
    case "$path" in
        */*) path=${path#*/} ;;
        *) path="" ;;
    esac
    local base=${path##*/}
    printf '%b' "${base//%/\\x}"
}

# A name that is safe as a file name on the worker: no slashes, not . or .., not empty.
safe_name() {
    local name=${1//\//_}
    name=${name//$'\n'/_}
    case "$name" in
        "" | . | ..) name="download" ;;
    esac
    printf '%s' "$name"
}

main() {
    set -e -o pipefail

    case "$url" in
        http://* | https://* | ftp://* | HTTP://* | HTTPS://* | FTP://*) ;;
        *) dx-jobutil-report-error "Only http, https and ftp URLs can be fetched, not '$(redacted "$url")'" AppError ;;
    esac
    if [ -n "${md5:-}" ] && ! [[ "$md5" =~ ^[0-9a-fA-F]{32}$ ]]; then
        dx-jobutil-report-error "md5 must be 32 hexadecimal digits, not '$md5'" AppError
    fi

    local shown work headers
    shown=$(redacted "$url")
    work=$(mktemp -d)
    headers="$work/headers"
    echo "Fetching $shown"
    # --fail: an HTTP error status is an error, not a saved error page. --proto(-redir): neither the
    # URL nor a redirect may reach file:// or other schemes that read the worker's own files.
    if ! curl --fail --location --silent --show-error --retry 3 --retry-delay 2 --connect-timeout 30 \
        --proto =http,https,ftp --proto-redir =http,https,ftp \
        --dump-header "$headers" --output "$work/body" --write-out '%{url_effective}' "$url" >"$work/effective"; then
        dx-jobutil-report-error "Could not fetch $shown (see the log for curl's message)" AppError
    fi

    local name=${output_name:-}
    if [ -z "$name" ]; then
        # The last Content-Disposition filename (after redirects), else the last path segment of the URL that answered.
        name=$(grep -i '^content-disposition:' "$headers" | tail -n 1 | sed -nE 's/.*filename="?([^";]+)"?.*/\1/p' | tr -d '\r' || true)
    fi
    if [ -z "$name" ]; then
        # The URL that answered, after redirects (a download link often redirects to the real name).
        name=$(name_from_url "$(cat "$work/effective")")
    fi
    name=$(safe_name "$name")

    local size
    size=$(stat -c %s "$work/body")
    echo "Received $size bytes as '$name'"
    if [ -n "${md5:-}" ]; then
        local actual
        actual=$(md5sum "$work/body" | cut -d ' ' -f 1)
        if [ "${actual,,}" != "${md5,,}" ]; then
            dx-jobutil-report-error "The MD5 of the download is $actual, not the expected $md5" AppError
        fi
        echo "MD5 verified: $actual"
    fi

    mkdir -p "$HOME/out/file"
    mv "$work/body" "$HOME/out/file/$name"
    rm -rf "$work"
    dx-upload-all-outputs
}
