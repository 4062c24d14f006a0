# Paths and helpers shared by the harness scripts (sourced, not run).
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$TOP/build
TREE=$BUILD/linux            # patched tree, a git repo; engineers commit here
VANILLA=$BUILD/vanilla       # git worktree of $TREE at tag base
OUT=$BUILD/out               # logs and results of the last runs
export CCACHE_DIR=${CCACHE_DIR:-/var/cache/flusher-ccache}
export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=10G

# what a kernel prints when something is wrong (judge.sh, stress/)
KERNEL_COMPLAINTS='BUG:|WARNING:|INFO: task .* blocked|INFO: possible|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|KASAN|UBSAN|soft lockup|hard LOCKUP|Oops|Kernel panic|general protection fault|kernel BUG|list_add corruption|list_del corruption|ODEBUG'

die() { echo "error: $*" >&2; exit 1; }
log() { echo ">>> $*" >&2; }

# src_of KERNEL -> source tree of "patched" or "vanilla"
src_of() {
	case $1 in
	patched) echo "$TREE" ;;
	vanilla) echo "$VANILLA" ;;
	*) die "KERNEL must be patched or vanilla, not '$1'" ;;
	esac
}

# patch ids of a list of commits or patch files, sorted
ids_tree() { git -C "$TREE" log -p --reverse base..HEAD | git patch-id --stable | cut -d' ' -f1 | sort; }
ids_repo() {
	local f
	for f in $(series_files); do cat "$f"; done | git patch-id --stable | cut -d' ' -f1 | sort
}
series_files() {
	[ -f "$TOP/patches/series" ] || return 0
	grep -v '^\s*\(#\|$\)' "$TOP/patches/series" | sed "s|^|$TOP/patches/|"
}
# the code the series changes: its diffs without changelogs and without
# Documentation/ or MAINTAINERS, which do not change what is built; kept
# stress and bench results are keyed by it
series_code() {
	local f
	for f in $(series_files); do
		awk '/^diff --git /{on = 1; skip = ($3 ~ /^a\/(Documentation\/|MAINTAINERS$)/)}
			/^-- $/{on = 0} on && !skip' "$f"
	done
}
