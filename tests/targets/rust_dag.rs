// SPDX-License-Identifier: GPL-2.0
//! rust_dag.rs - integration target for structures in Rust: a consensus
//! DAG, `dag::Consensus`, holding certificates by round and author in
//! nested HashMaps, each with a payload Vec grown by pushes (realloc).
//! A `#[global_allocator]` over `System` keeps the target's own exact tally
//! of what memwatch charges to the structure: blocks allocated while inside
//! `insert_certificate`, in requested bytes, still live (a realloc of a
//! charged block keeps the charge, as memwatch does).
//!
//! Single-threaded. After "ready", commands on stdin, one reply line each:
//! `run` inserts a window of rounds (new and replacing certificates),
//! `gc` drops the older half of what is held, `trim` shrinks payloads with
//! realloc outside any insert, `drain` drops every round, `quit` exits.
//! Its own I/O is raw reads and writes on fds 0 and 1: no allocation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::io::{Read, Write};
use std::mem::ManuallyDrop;
use std::os::unix::io::FromRawFd;

/// The structure under observation: what memwatch probes by name.
mod dag {
    use std::collections::HashMap;

    struct Certificate {
        #[allow(dead_code)]
        digest: [u8; 32],
        payload: Vec<u8>,
    }

    pub struct Consensus {
        rounds: HashMap<u64, HashMap<u64, Certificate>>,
    }

    impl Consensus {
        pub fn new() -> Consensus {
            Consensus { rounds: HashMap::new() }
        }

        /// Stores the certificate of @author in @round: 1 if it is new,
        /// 0 if it replaced one (whose payload is freed here).
        #[inline(never)]
        pub fn insert_certificate(&mut self, round: u64, author: u64, digest: [u8; 32]) -> usize {
            let _scope = crate::tally::InsertScope::enter();
            let payload = payload_of(round, author, &digest);
            let old = self
                .rounds
                .entry(round)
                .or_default()
                .insert(author, Certificate { digest, payload });
            usize::from(old.is_none())
        }

        /// Drops every round below @upto_round; returns how many
        /// certificates went with them.
        #[inline(never)]
        pub fn gc(&mut self, upto_round: u64) -> usize {
            let mut dropped = 0;
            self.rounds.retain(|&round, certs| {
                if round < upto_round {
                    dropped += certs.len();
                }
                round >= upto_round
            });
            dropped
        }

        /// Gives payloads back their spare capacity: realloc to a smaller
        /// size (or free when empty), outside any insert.
        pub fn trim(&mut self) {
            for certs in self.rounds.values_mut() {
                for cert in certs.values_mut() {
                    cert.payload.shrink_to_fit();
                }
            }
        }

        pub fn len(&self) -> usize {
            self.rounds.values().map(|certs| certs.len()).sum()
        }
    }

    /// 0 to 99 bytes, appended a few at a time: the Vec grows by realloc.
    fn payload_of(round: u64, author: u64, digest: &[u8; 32]) -> Vec<u8> {
        let len = ((round * 7 + author * 13) % 100) as usize;
        let mut payload = Vec::new();

        while payload.len() < len {
            let n = (len - payload.len()).min(1 + (author as usize) % 11);
            payload.extend_from_slice(&digest[..n]);
        }
        payload
    }
}

/// The target's own tally of charged blocks, kept by the global allocator
/// in a fixed table (keeping it allocates nothing).
mod tally {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Mutex;

    const SLOTS: usize = 1 << 16;
    const TOMBSTONE: usize = 1;

    struct Table {
        addr: [usize; SLOTS], // 0: never used; TOMBSTONE: freed
        size: [usize; SLOTS],
        live_bytes: i64,
        live_blocks: i64,
    }

    static TABLE: Mutex<Table> = Mutex::new(Table {
        addr: [0; SLOTS],
        size: [0; SLOTS],
        live_bytes: 0,
        live_blocks: 0,
    });
    /// Set just before "ready": memwatch knows no block from before.
    pub static TRACKING: AtomicBool = AtomicBool::new(false);

    thread_local! {
        static IN_INSERT: Cell<u32> = const { Cell::new(0) };
    }

    /// Marks the thread as inside insert_certificate until dropped.
    pub struct InsertScope;

    impl InsertScope {
        pub fn enter() -> InsertScope {
            IN_INSERT.with(|d| d.set(d.get() + 1));
            InsertScope
        }
    }

    impl Drop for InsertScope {
        fn drop(&mut self) {
            IN_INSERT.with(|d| d.set(d.get() - 1));
        }
    }

    pub fn charging() -> bool {
        TRACKING.load(Ordering::Relaxed) && IN_INSERT.with(|d| d.get() > 0)
    }

    fn home(addr: usize) -> usize {
        ((addr >> 4) as u64).wrapping_mul(0x9e3779b97f4a7c15) as usize >> 48
    }

    pub fn charge(p: *mut u8, size: usize) {
        let mut t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
        let mut i = home(p as usize);

        if t.live_blocks >= (SLOTS / 2) as i64 {
            std::process::abort(); // the tally would be wrong: fail loudly
        }
        while t.addr[i] > TOMBSTONE {
            i = (i + 1) & (SLOTS - 1);
        }
        t.addr[i] = p as usize;
        t.size[i] = size;
        t.live_bytes += size as i64;
        t.live_blocks += 1;
    }

    /// Takes @p off the tally; true if it was charged.
    pub fn discharge(p: *mut u8) -> bool {
        let mut t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
        let mut i = home(p as usize);

        for _ in 0..SLOTS {
            if t.addr[i] == 0 {
                break;
            }
            if t.addr[i] == p as usize {
                t.live_bytes -= t.size[i] as i64;
                t.live_blocks -= 1;
                t.addr[i] = TOMBSTONE;
                return true;
            }
            i = (i + 1) & (SLOTS - 1);
        }
        false
    }

    /// (live bytes, live blocks)
    pub fn live() -> (i64, i64) {
        let t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
        (t.live_bytes, t.live_blocks)
    }
}

/// System, with the tally kept on the side. What glibc sees is exactly
/// what System calls: malloc(size) or calloc(size, 1) when align <= 16 and
/// align <= size, posix_memalign otherwise; realloc on the same condition
/// for the new size, otherwise a new block, a copy and a free.
struct Tallied;

const MIN_ALIGN: usize = 16; // System's on x86-64

unsafe impl GlobalAlloc for Tallied {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && tally::charging() {
            tally::charge(p, layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() && tally::charging() {
            tally::charge(p, layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        tally::discharge(p); // before free: the address may come back at once
        unsafe { System.dealloc(p, layout) }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let glibc_realloc = layout.align() <= MIN_ALIGN && layout.align() <= new_size;
        let was_charged = tally::discharge(p);
        let q = unsafe { System.realloc(p, layout, new_size) };

        if q.is_null() {
            if was_charged {
                tally::charge(p, layout.size()); // failed: p is unchanged
            }
        } else if (glibc_realloc && was_charged) || tally::charging() {
            tally::charge(q, new_size);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Tallied = Tallied;

// ------------------------------------------------------------ the driver

const WINDOW: u64 = 40; // rounds per run
const AUTHORS: u64 = 10;

struct Driver {
    consensus: dag::Consensus,
    next_round: u64, // the first round the next run inserts
    inserted: u64,
    replaced: u64,
    dropped: u64,
}

fn digest_of(round: u64, author: u64, generation: u64) -> [u8; 32] {
    let mut d = [0u8; 32];
    for (i, b) in d.iter_mut().enumerate() {
        *b = (round * 31 + author * 17 + generation * 7 + i as u64) as u8;
    }
    d
}

impl Driver {
    fn insert(&mut self, round: u64, author: u64, generation: u64) {
        let digest = digest_of(round, author, generation);
        if self.consensus.insert_certificate(round, author, digest) == 1 {
            self.inserted += 1;
        } else {
            self.replaced += 1;
        }
    }

    /// A window of rounds, overlapping the last run's by half: new
    /// certificates, and replacements of every third author's.
    fn run(&mut self) {
        let first = self.next_round.saturating_sub(WINDOW / 2);
        for round in first..first + WINDOW {
            for author in 0..AUTHORS {
                self.insert(round, author, 0);
                if (round + author) % 3 == 0 {
                    self.insert(round, author, 1);
                }
            }
        }
        self.next_round = first + WINDOW;
    }

    fn gc(&mut self, upto_round: u64) {
        self.dropped += self.consensus.gc(upto_round) as u64;
    }

    fn elements(&self) -> u64 {
        self.inserted - self.dropped
    }
}

fn say(out: &mut File, args: std::fmt::Arguments) {
    let mut line = [0u8; 512];
    let mut cursor = &mut line[..];
    let room = cursor.len();

    if cursor.write_fmt(args).is_err() {
        std::process::exit(3);
    }
    let n = room - cursor.len();
    if out.write_all(&line[..n]).is_err() {
        std::process::exit(3);
    }
}

/// One command line, a byte at a time; end of input reads as "quit".
fn read_command<'a>(input: &mut File, line: &'a mut [u8; 64]) -> &'a [u8] {
    let mut n = 0;
    let mut byte = [0u8; 1];

    while n < line.len() {
        match input.read(&mut byte) {
            Ok(1) if byte[0] != b'\n' => {
                line[n] = byte[0];
                n += 1;
            }
            Ok(1) => return &line[..n],
            _ => return b"quit",
        }
    }
    &line[..n]
}

fn reply(out: &mut File, d: &Driver, what: &str) {
    let (bytes, blocks) = tally::live();

    if d.consensus.len() as u64 != d.elements() {
        say(out, format_args!("error the DAG holds {} certificates, the tally {}\n",
                              d.consensus.len(), d.elements()));
        std::process::exit(4);
    }
    say(out, format_args!(
        "{} elements={} bytes={} blocks={} inserted={} replaced={} dropped={}\n",
        what, d.elements(), bytes, blocks, d.inserted, d.replaced, d.dropped));
}

extern "C" {
    fn malloc(size: usize) -> *mut u8;
}

fn main() {
    // SAFETY: fds 0 and 1 stay open for the process's life; ManuallyDrop
    // keeps them from being closed.
    let mut input = ManuallyDrop::new(unsafe { File::from_raw_fd(0) });
    let mut out = ManuallyDrop::new(unsafe { File::from_raw_fd(1) });
    let mut d = Driver {
        consensus: dag::Consensus::new(),
        next_round: 0,
        inserted: 0,
        replaced: 0,
        dropped: 0,
    };
    let mut line = [0u8; 64];

    // warm-up on a DAG of its own, gone before "ready"
    {
        let mut warm = dag::Consensus::new();
        let mut sink = 0;
        for round in 0..4 {
            sink += warm.insert_certificate(round, 1, digest_of(round, 1, 0));
        }
        sink += warm.gc(u64::MAX);
        warm.trim();
        if sink != 8 {
            std::process::exit(5);
        }
    }
    tally::TRACKING.store(true, std::sync::atomic::Ordering::Relaxed);
    let malloc_addr = malloc as unsafe extern "C" fn(usize) -> *mut u8 as usize;
    say(&mut out, format_args!("ready pid={} malloc={:#x}\n", std::process::id(), malloc_addr));
    loop {
        match read_command(&mut input, &mut line) {
            b"run" => {
                d.run();
                reply(&mut out, &d, "ran");
            }
            b"gc" => {
                let upto = d.next_round - WINDOW / 2;
                d.gc(upto);
                reply(&mut out, &d, "collected");
            }
            b"trim" => {
                d.consensus.trim();
                reply(&mut out, &d, "trimmed");
            }
            b"drain" => {
                d.gc(u64::MAX);
                reply(&mut out, &d, "drained");
            }
            b"quit" => break,
            _ => say(&mut out, format_args!("error unknown command\n")),
        }
    }
}
