# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Bash completion for rc_pingpong, ud_pingpong, srq_pingpong and xrc_pingpong.
# The build writes one file per tool from this one (completion/CMakeLists.txt):
# the functions below, then, in place of the placeholder on the last line,
# the tool's option list that completion/pp_compgen writes from the option
# table of common/base/pp_opts.c.
# Installed in share/bash-completion/completions/, where bash-completion
# loads it the first time the tool is completed; or `source` it.  Each file
# is complete by itself; the functions are the same in all four.
#
# What it offers:
#   -...           the tool's options, short and long
#   -d, --ib-dev   the RDMA devices in /sys/class/infiniband
#   -i, --ib-port  the ports of that device
#   -g, --gid-idx  the populated GID indexes (a GID other than ::) of the
#                  device and port given on the line, or of the device the
#                  tool would pick (the first with the port active) and port 1
#   -m, --mtu      256 512 1024 2048 4096
#   --op           send write write-imm read fetch-add cmp-swap
#   --samples, --xrc-domain: files; -b and the server's host: host names
# Both "--ib-dev mlx5_0" and "--ib-dev=mlx5_0" work.
#
# PINGPONG_SYSFS, when set, stands for /sys (the tests use a made-up tree).

# _pingpong_arg SHORT LONG: the last value given to -SHORT/--LONG before the
# word being completed, in REPLY ("" when none).
_pingpong_arg()
{
	local i w
	REPLY=
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		"-$1" | "--$2")
			if [[ ${COMP_WORDS[i + 1]-} == = ]]; then
				((i + 2 < COMP_CWORD)) && REPLY=${COMP_WORDS[i + 2]}
			elif ((i + 1 < COMP_CWORD)); then
				REPLY=${COMP_WORDS[i + 1]}
			fi
			;;
		"--$2="?*) REPLY=${w#*=} ;;
		"-$1"?*) REPLY=${w#-"$1"} ;;
		esac
	done
}

# _pingpong_where: the device (-d, else the first whose port is active, else
# the first) and port (-i, else 1) of the command line, in pp_dev and
# pp_port; pp_dev is "" when the host has no RDMA device.
_pingpong_where()
{
	local ib=${PINGPONG_SYSFS:-/sys}/class/infiniband d state
	_pingpong_arg i ib-port
	pp_port=${REPLY:-1}
	_pingpong_arg d ib-dev
	pp_dev=$REPLY
	[[ -n $pp_dev ]] && return
	for d in "$ib"/*; do
		[[ -d $d ]] || continue
		[[ -n $pp_dev ]] || pp_dev=${d##*/}
		state=
		[[ -r $d/ports/$pp_port/state ]] &&
			read -r state <"$d/ports/$pp_port/state"
		if [[ $state == *ACTIVE* ]]; then
			pp_dev=${d##*/}
			return
		fi
	done
}

# _pingpong_values KIND: the values to offer for an option's KIND, one per
# line (see completion/pp_compgen.c).
_pingpong_values()
{
	local ib=${PINGPONG_SYSFS:-/sys}/class/infiniband pp_dev pp_port f gid
	case $1 in
	device)
		for f in "$ib"/*; do
			[[ -d $f ]] && printf '%s\n' "${f##*/}"
		done
		;;
	port)
		_pingpong_where
		[[ -n $pp_dev ]] || return 0
		for f in "$ib/$pp_dev"/ports/*; do
			[[ -d $f ]] && printf '%s\n' "${f##*/}"
		done
		;;
	gid)
		_pingpong_where
		[[ -n $pp_dev ]] || return 0
		for f in "$ib/$pp_dev/ports/$pp_port"/gids/*; do
			gid=
			[[ -r $f ]] && read -r gid <"$f" 2>/dev/null
			# an empty entry reads as all zeros (or cannot be read)
			[[ -n ${gid//[0:]/} ]] && printf '%s\n' "${f##*/}"
		done
		;;
	mtu)
		printf '%s\n' 256 512 1024 2048 4096
		;;
	op)
		printf '%s\n' send write write-imm read fetch-add cmp-swap
		;;
	esac
}

# The completion function of all four tools: complete -F passes the command,
# the word being completed and the one before it.
_pingpong_complete()
{
	local tool=${1##*/} cur prev prefix= spec var letter name kind= k
	local IFS=$'\n'
	COMPREPLY=()
	var=_pingpong_spec_$tool
	spec=${!var-}
	[[ -n $spec ]] || return 0
	cur=${COMP_WORDS[COMP_CWORD]-}
	prev=
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}

	# --opt=value: with '=' in COMP_WORDBREAKS (the default) bash makes
	# "--opt" "=" "value" words of it, else one word.
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == --*=* ]]; then
		prev=${cur%%=*}
		prefix=$prev=
		cur=${cur#*=}
	fi

	# the value of the option before it?
	while IFS=' ' read -r letter name k; do
		if [[ $prev == "--$name" ||
			($letter != - && $prev == "-$letter") ]]; then
			kind=$k
			break
		fi
	done <<<"$spec"
	case $kind in
	device | port | gid | mtu | op)
		mapfile -t COMPREPLY < <(compgen -W "$(_pingpong_values "$kind")" \
			-- "$cur")
		;;
	file)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	host)
		mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
		;;
	value) ;;
	*)
		# an option, or the server's host
		if [[ $cur == -* ]]; then
			local words=()
			while IFS=' ' read -r letter name k; do
				words+=("--$name")
				[[ $letter == - ]] || words+=("-$letter")
			done <<<"$spec"
			mapfile -t COMPREPLY < <(compgen -W "${words[*]}" \
				-- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
		fi
		;;
	esac
	if [[ -n $prefix ]]; then
		COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
	fi
	return 0
}

%OPTIONS%
