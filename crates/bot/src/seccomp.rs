//! The system-call filter of a contained bot and of its build: the calls no bot of a game needs
//! and that reach past its sandbox into the kernel's shared state (the key store, io_uring, BPF,
//! performance counters, new namespaces and mounts, other processes' memory) fail with `ENOSYS`,
//! as on a kernel without them, so a program that probes for one (an io_uring runtime) falls back
//! to the ordinary calls. Everything else is allowed: a deny list, not an allow list, because
//! bots come in every language and runtime and an allow list would break some at random.
//!
//! `bwrap` loads the filter (`--seccomp FD`) just before it executes the bot, after building the
//! sandbox with the very calls denied here. The program is compiled by `seccompiler` (the
//! rust-vmm project's, Firecracker's filter compiler) for the machine koth runs on.

use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use nix::libc;

/// The calls denied outright, by name as docs/containment.md lists them.
const DENIED: &[(&str, libc::c_long)] = &[
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("keyctl", libc::SYS_keyctl),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("open_tree", libc::SYS_open_tree),
    ("move_mount", libc::SYS_move_mount),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("pidfd_getfd", libc::SYS_pidfd_getfd),
    ("kcmp", libc::SYS_kcmp),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("reboot", libc::SYS_reboot),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("acct", libc::SYS_acct),
    ("quotactl", libc::SYS_quotactl),
    ("syslog", libc::SYS_syslog),
    // `clone3` passes its flags in memory a filter cannot read, so it is refused whole; the C
    // library then falls back to `clone`, whose flags are checked below.
    ("clone3", libc::SYS_clone3),
];

/// The flags of `clone` that make a new namespace: refused, like `unshare`.
const NAMESPACE_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWNS,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWCGROUP,
];

/// The names of the calls the filter denies, for the docs and the tests.
pub fn denied_calls() -> impl Iterator<Item = &'static str> {
    DENIED.iter().map(|(name, _)| *name)
}

/// The filter as `bwrap --seccomp` reads it: the raw `struct sock_filter` array. Compiled once.
pub(crate) fn program() -> Result<&'static [u8], String> {
    static PROGRAM: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    PROGRAM
        .get_or_init(|| {
            compile().map_err(|e| format!("cannot compile the system-call filter: {e}"))
        })
        .as_deref()
        .map_err(Clone::clone)
}

fn compile() -> Result<Vec<u8>, seccompiler::Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|&(_, call)| (call, vec![])).collect();
    let namespace_rules = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| {
            let flag = flag as u64;
            SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(flag),
                flag,
            )?])
        })
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_clone, namespace_rules);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )?;
    let mut program: BpfProgram = filter.try_into()?;
    guard_x32(&mut program, arch);
    Ok(program
        .iter()
        .flat_map(|i| {
            let mut bytes = [0u8; 8];
            bytes[..2].copy_from_slice(&i.code.to_ne_bytes());
            bytes[2] = i.jt;
            bytes[3] = i.jf;
            bytes[4..].copy_from_slice(&i.k.to_ne_bytes());
            bytes
        })
        .collect())
}

/// On x86-64 the same calls can be made through the x32 ABI, with bit 30 set in the number and
/// the same audit architecture, which a filter keyed by number alone lets through. No bot needs
/// x32: every call numbered so is refused, right after `seccompiler`'s check of the architecture
/// (its first three instructions, which jump only among themselves).
fn guard_x32(program: &mut BpfProgram, arch: TargetArch) {
    use seccompiler::sock_filter;
    if arch != TargetArch::x86_64 {
        return;
    }
    const X32_BIT: u32 = 0x4000_0000;
    let guard = [
        // A = seccomp_data.nr
        sock_filter {
            code: 0x20,
            jt: 0,
            jf: 0,
            k: 0,
        },
        // if A >= X32_BIT: fall through to the refusal, else skip it
        sock_filter {
            code: 0x35,
            jt: 0,
            jf: 1,
            k: X32_BIT,
        },
        sock_filter {
            code: 0x06,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32,
        },
    ];
    program.splice(3..3, guard);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_to_whole_instructions() {
        let program = program().unwrap();
        assert_eq!(program.len() % 8, 0);
        assert!(program.len() / 8 > DENIED.len());
    }
}
