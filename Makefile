# Per-bdi writeback flusher threads for Linux 6.12: build, boot, test, bench.
# See README.md. Every target installs what it needs (scripts/deps.sh).
KERNEL ?= patched
S := scripts

.PHONY: help run shell test kunit check patches bench stress fstests tree kernel clean

help:		## list the targets
	@sed -n 's/^\([a-z]*\):.*## \(.*\)/\1\t\2/p' $(MAKEFILE_LIST) | expand -t 12

run:		## build the patched kernel, boot it, run the demo (or CMD=...)
	@$(S)/deps.sh && $(S)/tree.sh $(KERNEL)
	@$(S)/run.sh $(KERNEL) $(if $(CMD),"$(CMD)",)

shell:		## interactive shell in the guest
	@$(S)/deps.sh && $(S)/tree.sh $(KERNEL)
	@$(S)/run.sh --shell $(KERNEL)

test:		## build the debug kernel, boot it, run every test
	@$(S)/test.sh $(KERNEL) $(TESTS)

kunit:		## the series' KUnit suites on UML via kunit.py (the fast loop)
	@$(S)/deps.sh && $(S)/kunit.sh

check:		## series applies, checkpatch --strict, builds with CGROUP_WRITEBACK=y/n
	@$(S)/deps.sh && $(S)/check.sh

patches:	## export base..HEAD of build/linux into patches/
	@$(S)/patches.sh

bench:		## stock vs patched benchmarks (QUICK=1 for a smoke run)
	@$(S)/deps.sh && bench/run.sh

stress:		## fault loops: power cuts, removal, memory pressure, soak (QUICK=1)
	@$(S)/deps.sh && stress/run.sh

fstests:	## fstests on stock and the series, kept and resumable (FSTYP= TESTS= FLUSHERS=)
	@$(S)/deps.sh && fstests/run.sh

tree:		## unpack and patch the kernel tree (KERNEL=vanilla: also the stock worktree)
	@$(S)/deps.sh && $(S)/tree.sh $(KERNEL)

kernel:		## just build (KERNEL=patched|vanilla FLAVOUR=test|bench)
	@$(S)/deps.sh && $(S)/tree.sh $(KERNEL) && $(S)/build.sh $(KERNEL) $(or $(FLAVOUR),test)

clean:		## remove objects, disks and results (keeps build/linux)
	rm -rf build/obj build/disks build/out
