#!/usr/bin/env bash
# help, the man page and the bash completion must agree on the commands,
# the global options, the kinds and each kind's options (as bpftool checks
# its own). Each list is read the way a user meets it: `qdiscctl help`,
# `--help`, `help KIND`, the committed doc/qdiscctl.8, and Tab in real bash.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
qd=$top/qdiscctl
man8=$top/doc/qdiscctl.8
script=$top/completions/qdiscctl.bash
bc=/usr/share/bash-completion/bash_completion

if [ ! -x "$qd" ] || [ ! -r "$bc" ]; then
	echo "SKIP agreement: needs a built ./qdiscctl and $bc"
	exit 77
fi

fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# same WHAT A B: two word lists (any order, any whitespace) must be equal.
same()
{
	local a b
	a=$(tr -s ' \n' '\n\n' <<<"$2" | sed '/^$/d' | sort -u | tr '\n' ' ')
	b=$(tr -s ' \n' '\n\n' <<<"$3" | sed '/^$/d' | sort -u | tr '\n' ' ')
	if [ "$a" = "$b" ]; then
		echo "PASS agreement: $1"
	else
		echo "FAIL agreement: $1"
		echo "      one:   $a"
		echo "      other: $b"
		fail=1
	fi
}

# The committed page is what the binary generates now.
if "$qd" __man >"$tmp/qdiscctl.8" && cmp -s "$tmp/qdiscctl.8" "$man8"; then
	echo "PASS agreement: doc/qdiscctl.8 is up to date"
else
	echo "FAIL agreement: doc/qdiscctl.8 differs from 'qdiscctl __man' (run 'make man'):"
	diff -u "$man8" "$tmp/qdiscctl.8" | head -20
	fail=1
fi
if command -v man >/dev/null; then
	if warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$man8" 2>&1 >/dev/null) &&
		[ -z "$warn" ]; then
		echo "PASS agreement: man -l renders doc/qdiscctl.8 without warnings"
	else
		echo "FAIL agreement: man -l doc/qdiscctl.8: $warn"
		fail=1
	fi
else
	echo "SKIP agreement: no man(1) to render the page"
fi

# Completion, as Tab gives it: source the script, complete a line.
# shellcheck source=/dev/null
. "$bc"
# shellcheck source=../../completions/qdiscctl.bash
. "$script"
tab()
{
	COMP_LINE=$1 COMP_POINT=${#1}
	read -ra COMP_WORDS <<<"$1"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	PATH=$top:$PATH _qdiscctl qdiscctl "${COMP_WORDS[COMP_CWORD]}" \
		"${COMP_WORDS[COMP_CWORD - 1]}"
	echo "${COMPREPLY[*]-}"
}

# Commands: help's list, the man page's COMMANDS, Tab.
help_cmds=$("$qd" help | sed -n '/^commands:/,/^$/s/^  \([^ ]*\) .*/\1/p')
man_cmds=$(sed -n '/^\.SH COMMANDS/,/^\.SH /{/^\.TP/{n;s/^\\fB\([^\\]*\)\\fR.*/\1/p}}' "$man8")
same "commands: help = man page" "$help_cmds" "$man_cmds"
same "commands: help = completion" "$help_cmds" "$(tab 'qdiscctl ')"

# Global options: --help's long options, the man page's OPTIONS, Tab.
help_opts=$("$qd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
man_opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man8" | grep -o '\\-\\-[a-z]\+\(\\-[a-z]\+\)*' |
	sed 's/\\//g')
same "global options: --help = man page" "$help_opts" "$man_opts"
same "global options: --help = completion" "$help_opts" \
	"$(tab 'qdiscctl --' | tr ' ' '\n' | grep -- '^--')"

# Kinds: help's list, the man page's KINDS, Tab after the place.
help_kinds=$("$qd" help | sed -n 's/^kinds://p')
same "kinds: help = man page" "$help_kinds" "$(sed -n 's/^\.SS //p' "$man8")"
same "kinds: help = completion" "$help_kinds" \
	"$(tab 'qdiscctl add dev lo root handle 1: ' | tr ' ' '\n' | grep -vx 'dev\|handle')"

# Each kind's option words (names and keywords): help KIND's synopsis, the
# man page's section of the kind, Tab after the kind.
for k in $help_kinds; do
	help_words=$("$qd" help "$k" | sed -n '1s/^usage: .* '"$k"'\( \|$\)//p' |
		tr -d '[]|' | tr ' ' '\n' | grep '^[a-z]')
	man_words=$(sed -n '/^\.SS '"$k"'$/,/^\.S[SH] /{/^\.TP/{n;s/^\.B //p}}' "$man8" |
		sed 's/\\-/-/g' | tr ' ' '\n' | grep '^[a-z]')
	same "$k options: help = man page" "$help_words" "$man_words"
	# A cgroup entry's optional fields are offered after its value.
	entry_words=
	for o in $("$qd" -j help "$k" | jq -r '.options[] | select(.fields) | .name'); do
		entry_words="$entry_words $(tab "qdiscctl add dev lo root $k $o / rate 1mbit ")"
	done
	same "$k options: help = completion" "$help_words" \
		"$(tab "qdiscctl add dev lo root $k ") $entry_words"
done

# The script keeps grammar only: no kind, option, sysctl or column names.
# ("apply backpressure" names sysctl's profile, which is grammar, not edt's keyword.)
code=$(sed 's/#.*//; /apply)/d' "$script")
hard=
for w in $help_kinds $("$qd" __complete sysctls) $("$qd" __complete columns) \
	$(for k in $help_kinds; do "$qd" __complete kind-options "$k"; done); do
	grep -qw -- "$w" <<<"$code" && hard="$hard $w"
done
if [ -z "$hard" ]; then
	echo "PASS agreement: the completion script lists no kinds, options, sysctls or columns"
else
	echo "FAIL agreement: completions/qdiscctl.bash hard-codes:$hard"
	fail=1
fi

exit $fail
