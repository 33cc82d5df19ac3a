# bash completion for qdiscctl                              -*- shell-script -*-
#
# Only the grammar lives here: which keyword takes what. Every list (commands,
# global options, kinds, their options and values, devices, handles, sysctls,
# flow columns) comes from `qdiscctl __complete`, so the script never has to
# change when qdiscctl grows a kind, an option or a command.
#
# Needs bash-completion's _init_completion; safe under `set -u`.

# _qdiscctl_q ARGS...: run qdiscctl __complete quietly, in the netns of the line.
_qdiscctl_q()
{
	"$_qdiscctl_bin" ${_qdiscctl_ns:+-n "$_qdiscctl_ns"} __complete "$@" 2>/dev/null
}

# _qdiscctl_reply WORDS: complete cur from WORDS (newline-separated), without
# the words already on the line after the command (an option is given once).
_qdiscctl_reply()
{
	local w used=" ${_qdiscctl_rest[*]-} " list=()

	for w in $1; do
		[[ $used == *" $w "* ]] || list+=("$w")
	done
	COMPREPLY=($(compgen -W "${list[*]-}" -- "$cur"))
}

# _qdiscctl_words WORDS: complete cur from WORDS as they are.
_qdiscctl_words()
{
	COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

# _qdiscctl_kind_opts KIND KINDI: complete KIND (words[KINDI])'s options, or
# the values the words after it call for.
_qdiscctl_kind_opts()
{
	local vals
	# A value or an option name: the binary knows how many values each takes.
	if ((cword > $2 + 1)) &&
		vals=$(_qdiscctl_q kind-values "$1" "${words[@]:$2+1:cword-$2-1}"); then
		_qdiscctl_words "$vals"
	else
		_qdiscctl_reply "$(_qdiscctl_q kind-options "$1")"
	fi
}

_qdiscctl()
{
	local cur prev words cword
	_init_completion -n := || return

	local _qdiscctl_bin=${words[0]} _qdiscctl_ns='' _qdiscctl_rest=()
	local i=1 w argopts cmd='' cmdi=0

	# Global options up to the command word; note -n's namespace.
	argopts=" $("$_qdiscctl_bin" __complete options arg 2>/dev/null | tr '\n' ' ') "
	while ((i < cword)); do
		w=${words[i]}
		case $w in
		--netns=*) _qdiscctl_ns=${w#--netns=} ;;
		-n?*) _qdiscctl_ns=${w#-n} ;;
		-*)
			if [[ $argopts == *" $w "* ]] && ((i + 1 < cword)); then
				[[ $w == -n || $w == --netns ]] && _qdiscctl_ns=${words[i + 1]}
				((i++))
			fi
			;;
		*)
			cmdi=$i
			break
			;;
		esac
		((i++))
	done

	if ((cmdi == 0)); then
		case $prev in
		-n | --netns)
			_qdiscctl_words "$(ip netns list 2>/dev/null | cut -d' ' -f1)"
			return
			;;
		-b | --batch)
			_filedir
			return
			;;
		esac
		if [[ $cur == -* ]]; then
			_qdiscctl_words "$(_qdiscctl_q options)"
		else
			_qdiscctl_words "$(_qdiscctl_q commands)"
		fi
		return
	fi

	cmd=$(_qdiscctl_q command "${words[cmdi]}") || return
	_qdiscctl_rest=("${words[@]:cmdi+1:cword-cmdi-1}")

	case $cmd in
	help)
		((cword == cmdi + 1)) &&
			_qdiscctl_words "$(_qdiscctl_q commands) $(_qdiscctl_q kinds)"
		return
		;;
	sysctl)
		local sub=${words[cmdi + 1]-}
		if ((cword == cmdi + 1)); then
			_qdiscctl_words "show set apply restore"
			return
		fi
		case $sub in
		show) _qdiscctl_reply "$(_qdiscctl_q sysctls)" ;;
		set) ((cword == cmdi + 2)) && _qdiscctl_words "$(_qdiscctl_q sysctls)" ;;
		apply) ((cword == cmdi + 2)) && _qdiscctl_words "backpressure" ;;
		esac
		return
		;;
	default)
		if ((cword == cmdi + 1)); then
			_qdiscctl_words "$(_qdiscctl_q kinds) restore"
		elif [[ " $(_qdiscctl_q kinds | tr '\n' ' ') " == *" ${words[cmdi + 1]} "* ]]; then
			_qdiscctl_kind_opts "${words[cmdi + 1]}" $((cmdi + 1))
		fi
		return
		;;
	apply)
		if [[ $cur == -* ]]; then
			_qdiscctl_words "--dry-run --force"
		else
			_filedir
		fi
		return
		;;
	watch)
		((cword == cmdi + 1)) && _filedir
		return
		;;
	monitor)
		case $prev in
		dev) _qdiscctl_words "$(_qdiscctl_q devices)" ;;
		-i | -c) ;;
		*)
			if ((cword == cmdi + 1)); then
				_qdiscctl_words "events dev flows -i -c"
			elif [[ ${words[cmdi + 1]} != events ]]; then
				_qdiscctl_reply "dev flows -i -c"
			fi
			;;
		esac
		return
		;;
	metrics | exporter)
		case $prev in
		netns) _qdiscctl_words "$(ip netns list 2>/dev/null | cut -d' ' -f1)" ;;
		--textfile) _filedir ;;
		*)
			if [[ $cmd == metrics ]]; then
				_qdiscctl_reply "netns --all-netns --textfile"
			else
				_qdiscctl_reply "netns --all-netns"
			fi
			;;
		esac
		return
		;;
	save)
		if ((cword == cmdi + 1)); then
			_qdiscctl_words "dev"
		elif ((cword == cmdi + 2)); then
			_qdiscctl_words "$(_qdiscctl_q devices)"
		fi
		return
		;;
	add | replace | change | del | show) ;;
	*) return ;;
	esac

	# tc's grammar: keywords in any order, the first other word is the kind,
	# everything after it the kind's options.
	local dev='' kind='' kindi=0 place='' flows='' mq='' kinds
	kinds=" $(_qdiscctl_q kinds | tr '\n' ' ') "
	i=$((cmdi + 1))
	while ((i < cword)); do
		w=${words[i]}
		if [[ -n $kind ]]; then
			# "root mq KIND": the word after mq is the children's kind.
			if [[ $kind == mq && -z $mq && $place == root && $cmd != change ]]; then
				mq=1
				kind=$w
				kindi=$i
			fi
		elif [[ $w == dev ]]; then
			((i++))
			dev=${words[i]}
		elif [[ $w == parent ]]; then
			((i++))
			place=parent
		elif [[ $w == handle ]]; then
			((i++))
		elif [[ $w == root ]]; then
			place=root
		elif [[ $cmd == show && $w == flows ]]; then
			flows=1
		elif [[ $cmd == show && $w == sort ]]; then
			((i++))
		elif [[ $cmd != show ]]; then
			kind=$w
			kindi=$i
		fi
		((i++))
	done

	case $prev in
	dev)
		[[ -z $kind ]] && _qdiscctl_words "$(_qdiscctl_q devices)"
		[[ -z $kind ]] && return
		;;
	parent | handle)
		if [[ -z $kind ]]; then
			[[ -n $dev ]] && _qdiscctl_words "$(_qdiscctl_q handles "$dev")"
			__ltrim_colon_completions "$cur"
			return
		fi
		;;
	sort)
		[[ -n $flows ]] && _qdiscctl_words "$(_qdiscctl_q columns)"
		return
		;;
	esac

	if [[ $kind == mq && -z $mq && $place == root && $cmd != change ]]; then
		_qdiscctl_reply "$kinds"
		return
	fi
	if [[ -n $kind ]]; then
		# Not one of ours (pfifo): tc knows its options, we do not.
		[[ $kinds == *" $kind "* ]] || return
		_qdiscctl_kind_opts "$kind" "$kindi"
		return
	fi

	local kw="dev handle"
	[[ -z $place ]] && kw+=" root parent"
	if [[ $cmd == show ]]; then
		if [[ -z $flows ]]; then
			kw+=" flows"
		else
			kw+=" sort"
		fi
		_qdiscctl_reply "$kw"
	else
		_qdiscctl_reply "$kw $kinds"
	fi
}
complete -F _qdiscctl qdiscctl
