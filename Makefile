# Per-bdi writeback flusher threads for Linux 6.12: build, boot, test, bench.
# See README.md. Every target installs what it needs (scripts/deps.sh).
KERNEL ?= patched
S := scripts

.PHONY: run shell test check patches bench tree kernel clean

run:		## build the patched kernel, boot it, run the demo (or CMD=...)
	@$(S)/deps.sh && $(S)/tree.sh
	@$(S)/run.sh $(KERNEL) $(if $(CMD),"$(CMD)",)

shell:		## interactive shell in the guest
	@$(S)/deps.sh && $(S)/tree.sh $(KERNEL)
	@$(S)/run.sh --shell $(KERNEL)

test:		## build the debug kernel, boot it, run every test
	@$(S)/test.sh $(KERNEL) $(TESTS)

check:		## series applies, checkpatch --strict, builds with CGROUP_WRITEBACK=y/n
	@$(S)/deps.sh && $(S)/check.sh

patches:	## export base..HEAD of build/linux into patches/
	@$(S)/patches.sh

bench:		## stock vs patched benchmarks (QUICK=1 for a smoke run)
	@$(S)/deps.sh && bench/run.sh

tree:
	@$(S)/deps.sh && $(S)/tree.sh $(KERNEL)

kernel:		## just build (KERNEL=patched|vanilla FLAVOUR=test|bench)
	@$(S)/deps.sh && $(S)/tree.sh $(KERNEL) && $(S)/build.sh $(KERNEL) $(or $(FLAVOUR),test)

clean:		## remove objects, disks and results (keeps build/linux)
	rm -rf build/obj build/disks build/out
