// SPDX-License-Identifier: GPL-2.0
//! rust_node.rs - integration target for names as people write them and
//! for counts on a Narwhal-like node, built as a release is (-O2,
//! debug = 2, panic = unwind):
//!   - `consensus::ConsensusState::add_certificate` (out of line) inserts a
//!     certificate, or panics before inserting for a bad author; the
//!     panic is caught at the task boundary, as a node does;
//!   - `consensus::ConsensusState::remove_certificate`, `#[inline(always)]`:
//!     no symbol is left, only the inlined copies DWARF records, one in
//!     the async `gc_task` (polled by a small executor of its own) and
//!     one in `evict`;
//!   - `mempool::Pool::insert` and `network::Pool::insert`: one method
//!     name in two modules;
//!   - `store::Table<T>::put`, generic, used with one T.
//!
//! After "ready pid=N malloc=ADDR", commands on stdin, one reply line each: "run N" adds N
//! certificates (every fifth with a bad author: it panics), "gc R" runs
//! the gc task for rounds below R, "evict" removes one certificate
//! through `evict`, "quit" exits 0. The reply is the node's own tally.

use std::collections::HashMap;
use std::future::Future;
use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

pub mod consensus {
    use std::collections::HashMap;

    pub const BAD_AUTHOR: u64 = u64::MAX;

    pub struct ConsensusState {
        pub dag: HashMap<u64, HashMap<u64, Vec<u8>>>,
    }

    impl ConsensusState {
        pub fn new() -> ConsensusState {
            ConsensusState { dag: HashMap::new() }
        }

        /// 1 if the certificate is new, 0 if it replaced one; panics for
        /// a bad author before touching the DAG.
        #[inline(never)]
        pub fn add_certificate(&mut self, round: u64, author: u64, len: usize) -> usize {
            if author == BAD_AUTHOR {
                panic!("certificate from an unknown authority");
            }
            let old = self.dag.entry(round).or_default().insert(author, vec![7u8; len]);
            usize::from(old.is_none())
        }

        /// Removes one certificate that is there: always one.
        #[inline(always)]
        pub fn remove_certificate(&mut self, round: u64, author: u64) -> usize {
            let certs = self.dag.get_mut(&round).expect("the round is there");
            certs.remove(&author).expect("the certificate is there");
            if certs.is_empty() {
                self.dag.remove(&round);
            }
            1
        }

        /// The certificates of rounds below @upto, as (round, author).
        pub fn older_than(&self, upto: u64) -> Vec<(u64, u64)> {
            let mut v: Vec<(u64, u64)> = self
                .dag
                .iter()
                .filter(|(r, _)| **r < upto)
                .flat_map(|(r, certs)| certs.keys().map(move |a| (*r, *a)))
                .collect();
            v.sort();
            v
        }

        pub fn len(&self) -> usize {
            self.dag.values().map(|c| c.len()).sum()
        }
    }
}

pub mod mempool {
    pub struct Pool {
        pub batches: Vec<u64>,
    }

    impl Pool {
        #[inline(never)]
        pub fn insert(&mut self, digest: u64) {
            self.batches.push(digest);
        }
    }
}

pub mod network {
    pub struct Pool {
        pub peers: Vec<u64>,
    }

    impl Pool {
        #[inline(never)]
        pub fn insert(&mut self, peer: u64) {
            self.peers.push(peer ^ 1);
        }
    }
}

pub mod store {
    pub struct Table<T> {
        pub rows: Vec<T>,
    }

    impl<T> Table<T> {
        #[inline(never)]
        pub fn put(&mut self, row: T) {
            self.rows.push(row);
        }
    }
}

/// A static a --read root can name.
pub static PEERS: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// The gc task: yields once between certificates, as a task on a busy
/// runtime would, and removes every certificate below @upto.
async fn gc_task(state: &mut consensus::ConsensusState, upto: u64) -> usize {
    let mut removed = 0;

    for (round, author) in state.older_than(upto) {
        YieldOnce(false).await;
        removed += state.remove_certificate(round, author);
    }
    removed
}

struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Polls @f to its end on this thread.
fn block_on<F: Future>(f: F) -> F::Output {
    fn clone(_: *const ()) -> RawWaker {
        RawWaker::new(std::ptr::null(), &VTABLE)
    }
    fn noop(_: *const ()) {}
    static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, noop, noop, noop);
    // SAFETY: the vtable's functions do nothing with the null data pointer.
    let waker = unsafe { Waker::from_raw(RawWaker::new(std::ptr::null(), &VTABLE)) };
    let mut cx = Context::from_waker(&waker);
    let mut f = Box::pin(f);

    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Hands a certificate to consensus, as a node's task does, with a note of
/// it held across the call: its drop is cleanup code that a panic in
/// add_certificate runs on its way to the task boundary.
#[inline(never)]
fn submit(state: &mut consensus::ConsensusState, round: u64, author: u64, len: usize) -> usize {
    let note = format!("certificate {} of round {}", author, round);
    let added = state.add_certificate(round, author, len);
    std::hint::black_box(&note);
    added
}

/// Removes the oldest certificate outside the task: the second copy.
#[inline(never)]
fn evict(state: &mut consensus::ConsensusState) -> usize {
    match state.older_than(u64::MAX).first() {
        Some(&(round, author)) => state.remove_certificate(round, author),
        None => 0,
    }
}

fn main() {
    let mut state = consensus::ConsensusState::new();
    let mut pool = mempool::Pool { batches: Vec::new() };
    let mut peers = network::Pool { peers: Vec::new() };
    let mut table = store::Table { rows: Vec::new() };
    let (mut round, mut inserts, mut panicked, mut removed) = (0u64, 0u64, 0u64, 0u64);
    let mut returned: HashMap<&str, u64> = HashMap::new();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();

    std::panic::set_hook(Box::new(|_| {})); // caught panics stay quiet
    extern "C" {
        fn malloc(n: usize) -> *mut u8;
    }
    let m: unsafe extern "C" fn(usize) -> *mut u8 = malloc;
    writeln!(out, "ready pid={} malloc={:#x}", std::process::id(), m as usize).unwrap();
    out.flush().unwrap();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let mut words = line.split_whitespace();

        match (words.next(), words.next().and_then(|w| w.parse::<u64>().ok())) {
            (Some("run"), Some(n)) => {
                for i in 0..n {
                    let author = if i % 5 == 4 { consensus::BAD_AUTHOR } else { i % 4 };
                    let len = 16 + (i % 7) as usize * 8;
                    let r = catch_unwind(AssertUnwindSafe(|| submit(&mut state, round, author, len)));
                    inserts += 1;
                    match r {
                        Ok(v) => *returned.entry("add").or_default() += v as u64,
                        Err(_) => panicked += 1,
                    }
                    if i % 4 == 3 {
                        round += 1;
                    }
                    pool.insert(i);
                    peers.insert(i);
                    table.put((i, round as u32));
                }
                PEERS.lock().unwrap().push(n);
            }
            (Some("gc"), Some(upto)) => removed += block_on(gc_task(&mut state, upto)) as u64,
            (Some("evict"), None) => removed += evict(&mut state) as u64,
            (Some("quit"), None) => break,
            _ => {
                writeln!(out, "error: {}", line).unwrap();
                out.flush().unwrap();
                continue;
            }
        }
        writeln!(
            out,
            "certs={} inserts={} added={} panicked={} removed={} round={} pool={} peers={} rows={}",
            state.len(),
            inserts,
            returned.get("add").copied().unwrap_or(0),
            panicked,
            removed,
            round,
            pool.batches.len(),
            peers.peers.len(),
            table.rows.len()
        )
        .unwrap();
        out.flush().unwrap();
    }
}
