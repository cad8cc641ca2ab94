# Sourced by every bin in ../bin with the command's name and arguments; never returns.
#
# Inside a job whose runner offers a helper host (PANX_HELPER_PORT and PANX_HELPER_KEY_FILE, see
# src/host.ts), the command runs there: bash connects to the host through its own /dev/tcp, so a call
# starts no process but `env`. The host writes the output to this process's stdout and stderr itself
# and answers "exit N". When there is no host, it cannot be reached, it answers "fallback", or the
# call reads standard input (an argument "-"), the command runs in a Node process of its own, as it
# always can.

panx_tool=$1
shift
panx_root=${BASH_SOURCE[0]%/*}/..

panx_host=
panx_key=
if [ -n "${PANX_HELPER_PORT:-}" ] && [ -n "${PANX_HELPER_KEY_FILE:-}" ] && [[ " $* " != *" - "* ]] &&
    { IFS= read -r panx_key <"$PANX_HELPER_KEY_FILE"; } 2>/dev/null && [ -n "$panx_key" ] &&
    { exec {panx_out}>&1; } 2>/dev/null && exec {panx_err}>&2 &&
    { exec {panx_fd}<>"/dev/tcp/127.0.0.1/$PANX_HELPER_PORT"; } 2>/dev/null; then
    # The host greets first. Whatever else answers on that port (another service, on the port of a
    # host that is gone, or this very socket connected to itself) is sent nothing.
    if { IFS= read -r -t 5 -u "$panx_fd" panx_hello && [ "$panx_hello" = 'panx-helper/1' ]; } 2>/dev/null; then
        panx_host=yes
    else
        exec {panx_fd}>&-
    fi
fi

if [ -n "$panx_host" ]; then
    # The request (src/host.ts parseHostRequest): NUL-terminated fields, the environment as env -0
    # writes it, then an empty field. The host writes to copies of stdout and stderr made above:
    # while the request is written, fd 1 is the connection.
    trap '' PIPE # a host that went away must not kill this shell with SIGPIPE
    { printf '%s\0' 'panx-helper/1' "$panx_key" "$panx_tool" "$PWD" "$$" "$panx_out" "$panx_err" "$#" "$@"; env -0; printf '\0'; } >&"$panx_fd" 2>/dev/null
    trap - PIPE
    panx_answer=
    IFS= read -r -u "$panx_fd" panx_answer
    exec {panx_fd}>&-
    case "$panx_answer" in
        "exit "[0-9]*) exit "${panx_answer#exit }" ;;
        fallback) ;;
        *)
            # No answer: the host went away during the call, which may have half run; not run again.
            echo "$panx_tool: the job's helper host failed${panx_answer:+: $panx_answer}" >&2
            exit 1
            ;;
    esac
fi
# The copies of stdout and stderr made above are not passed on to Node.
[ -n "${panx_out:-}" ] && exec {panx_out}>&-
[ -n "${panx_err:-}" ] && exec {panx_err}>&-

if [ ! -f "$panx_root/dist/cli.js" ]; then
    echo "$panx_tool: @panx/worker-tools is not built yet: run \"npm run build\" in the Panx repository" >&2
    exit 1
fi
exec node "$panx_root/dist/cli.js" "$panx_tool" "$@"
