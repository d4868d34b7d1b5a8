# Shared by the benchmark scripts (sourced, not run): commands measured in turns, medians.
#
# A command is an array named ${var}_cmd; each `sample VAR` runs it once and appends its
# wall and CPU (user + system) time in seconds (bash's `time`, millisecond resolution) and
# its peak RSS in KiB (/usr/bin/time) to ${var}_walls, ${var}_cpus and ${var}_rsss. Run
# every command once per round, in turn, so that a change in the machine's load touches
# them all alike (whatever their exit status); `report NAME VAR` then prints the medians and sets ${var}_wall,
# ${var}_cpu and ${var}_rss. Needs $work, a scratch directory.

TIMEFORMAT='%3R %3U %3S'

sample() {
    local var=$1 times real user sys
    local -n command="${var}_cmd" walls="${var}_walls" cpus="${var}_cpus" rsss="${var}_rsss"
    # A command's exit status is not judged here (`check` exits 1 when it rejects).
    times=$( { time /usr/bin/time -f '%M' -o "$work/rss.txt" "${command[@]}" > /dev/null 2>&1 || true; } 2>&1 )
    read -r real user sys <<< "$times"
    walls+=("$real")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
    rsss+=("$(tail -n 1 "$work/rss.txt")")
}

report() {
    local name=$1 var=$2 wall cpu rss
    local -n walls="${var}_walls" cpus="${var}_cpus" rsss="${var}_rsss"
    wall=$(median "${walls[@]}"); cpu=$(median "${cpus[@]}"); rss=$(median "${rsss[@]}")
    printf '%-34s wall %7.3f s   cpu %7.3f s   peak RSS %8d KiB\n' "$name" "$wall" "$cpu" "$rss"
    eval "${var}_wall=$wall; ${var}_cpu=$cpu; ${var}_rss=$rss"
}

median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# Prints "LABEL: wall Wx, cpu Cx, memory Mx" for command A over command B (medians).
ratio() {
    local label=$1 a=$2 b=$3
    local -n aw="${a}_wall" ac="${a}_cpu" ar="${a}_rss" bw="${b}_wall" bc="${b}_cpu" br="${b}_rss"
    awk -v l="$label" -v aw="$aw" -v bw="$bw" -v ac="$ac" -v bc="$bc" -v ar="$ar" -v br="$br" \
        'BEGIN { printf "%-34s wall %.2fx, cpu %.2fx, memory %.2fx\n", l, aw / bw, ac / bc, ar / br }'
}
