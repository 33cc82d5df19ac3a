# shellcheck shell=bash
# A private apt view of other Debian suites, for downloading (never
# installing) packages the build and the VM tests need. The mirror is read
# from the system's own apt sources so that no host is written here; the
# system's apt state is never touched.
#
# Usage: source this file, then `papt_init DIR` and `papt_download DEST PKG...`.

papt_mirror() {
	local uri=""
	if [ -r /etc/apt/sources.list.d/debian.sources ]; then
		uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
			/etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$uri" ]; then
		uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }')
	fi
	[ -n "$uri" ] || { echo "apt-private: no Debian mirror in the system's apt sources" >&2; return 1; }
	echo "$uri"
}

# papt_init DIR: lists and cache under DIR; `apt-get update` at most once a day.
papt_init() {
	PAPT_DIR=$(mkdir -p "$1" && cd "$1" && pwd)
	local mirror suite
	mirror=$(papt_mirror) || return 1
	mkdir -p "$PAPT_DIR/lists/partial" "$PAPT_DIR/archives/partial" "$PAPT_DIR/sources.list.d"
	: >"$PAPT_DIR/sources.list.new"
	for suite in bookworm-backports trixie trixie-backports sid; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
			>>"$PAPT_DIR/sources.list.new"
	done
	mv "$PAPT_DIR/sources.list.new" "$PAPT_DIR/sources.list"
	PAPT_OPTS=(-o "Dir::Etc::sourcelist=$PAPT_DIR/sources.list"
		-o "Dir::Etc::sourceparts=$PAPT_DIR/sources.list.d"
		-o "Dir::State::Lists=$PAPT_DIR/lists"
		-o "Dir::Cache::archives=$PAPT_DIR/archives"
		-o "Dir::Cache::pkgcache=$PAPT_DIR/pkgcache.bin"
		-o "Dir::Cache::srcpkgcache=$PAPT_DIR/srcpkgcache.bin"
		-o APT::Sandbox::User=root -o Acquire::Retries=3)
	if [ -z "$(find "$PAPT_DIR/stamp-update" -mmin -1440 2>/dev/null)" ]; then
		apt-get -qq "${PAPT_OPTS[@]}" update >&2 || return 1
		touch "$PAPT_DIR/stamp-update"
	fi
}

# papt_candidate PKG: the version apt would pick, empty when absent.
papt_candidate() {
	apt-cache "${PAPT_OPTS[@]}" policy "$1" 2>/dev/null | awk '/Candidate:/ { if ($2 != "(none)") print $2 }'
}

# papt_pkgnames PREFIX: package names starting with PREFIX.
papt_pkgnames() {
	apt-cache "${PAPT_OPTS[@]}" pkgnames "$1" 2>/dev/null
}

# papt_download DEST PKG[=VER|/SUITE]...: .deb files into DEST (kept as a cache).
papt_download() {
	local dest=$1
	shift
	mkdir -p "$dest"
	(cd "$dest" && apt-get -qq "${PAPT_OPTS[@]}" download "$@") >&2
}
