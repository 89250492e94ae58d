// SPDX-License-Identifier: GPL-2.0
//! read_rust.rs - integration target for --read on Rust: standard
//! containers in statics, in the wrappers statics sit in, that memwatch
//! reads from the target's memory by their DWARF types while four
//! threads change them. Built --release style (-C opt-level=2) with
//! debug = 2 (-g).
//!
//! Instances reached through a parameter: three Peers (in Boxes) whose
//! record and forget methods take &mut self, and a Dag that a worker
//! thread owns on its stack, fed through a channel.
//!
//! The oracle knows no layout: a counting #[global_allocator] charges
//! every block to the structure the thread is working on (a thread-local
//! tag set around each operation), and a freed block back to the tag it
//! was charged to (kept in front of it), so a structure's tally is the
//! bytes its operations left live: the bytes it retains.
//!
//! Commands: "run N" has four threads do N operations each, spread over
//! the structures, then, quiescent, replies "ran" and, for each
//! structure S, "S_len=L S_bytes=B"; "init" sets the OnceLock UNSET
//! was until then; "drop" drops the second Peer; "churn N" frees and
//! builds REG again N times; "quit".

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::mpsc;
use std::sync::{Arc, LazyLock, Mutex, OnceLock, RwLock};

const NTAGS: usize = 14;
static LIVE: [AtomicI64; NTAGS] = [const { AtomicI64::new(0) }; NTAGS];
thread_local! { static TAG: Cell<usize> = const { Cell::new(0) }; }

struct Counting;

/// Room in front of each block for its tag.
fn front(l: Layout) -> usize {
    l.align().max(16)
}

// realloc is GlobalAlloc's own: alloc, copy, dealloc, each counted here.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let h = front(l);
        let tag = TAG.try_with(|t| t.get()).unwrap_or(0);
        let p = unsafe { System.alloc(Layout::from_size_align_unchecked(l.size() + h, l.align())) };
        if p.is_null() {
            return p;
        }
        LIVE[tag].fetch_add(l.size() as i64, Relaxed);
        unsafe {
            let q = p.add(h);
            (q.sub(8) as *mut u64).write(tag as u64);
            q
        }
    }
    unsafe fn dealloc(&self, q: *mut u8, l: Layout) {
        let h = front(l);
        unsafe {
            let tag = (q.sub(8) as *const u64).read() as usize;
            LIVE[tag].fetch_sub(l.size() as i64, Relaxed);
            System.dealloc(q.sub(h), Layout::from_size_align_unchecked(l.size() + h, l.align()))
        }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

// The structures memwatch reads, each with its tag.
pub static MAP: LazyLock<Mutex<HashMap<u64, u64>>> = LazyLock::new(|| Mutex::new(HashMap::new()));
pub static REG: Mutex<Option<HashMap<u64, Vec<u8>>>> = Mutex::new(None);
pub static TREE: OnceLock<Mutex<BTreeMap<String, Vec<String>>>> = OnceLock::new();
pub static LIST: RwLock<Vec<u32>> = RwLock::new(Vec::new());
pub static QUEUE: Mutex<VecDeque<u16>> = Mutex::new(VecDeque::new());
pub static BOXED: Mutex<Option<Box<Vec<u64>>>> = Mutex::new(None);
pub static SHARED: Mutex<Option<Arc<Vec<u64>>>> = Mutex::new(None);
pub static NAME: Mutex<String> = Mutex::new(String::new());
pub static SET: LazyLock<RwLock<HashSet<u32>>> = LazyLock::new(|| RwLock::new(HashSet::new()));
pub static UNSET: OnceLock<Vec<u64>> = OnceLock::new();

/// Instances of one type, read through self: their tables are summed.
pub struct Peer {
    pub id: u64,
    pub name: String,
    pub seen: HashMap<u64, u64>,
}

impl Peer {
    #[inline(never)]
    pub fn record(&mut self, k: u64, v: u64) {
        self.seen.insert(k, v);
    }
    #[inline(never)]
    pub fn forget(&mut self, k: u64) {
        self.seen.remove(&k);
    }
}

pub static PEERS: Mutex<Vec<Box<Peer>>> = Mutex::new(Vec::new());

/// A worker's DAG, on its stack: rounds of certificates by key.
pub struct Cert {
    pub digest: [u8; 32],
    pub payload: Vec<u8>,
}

pub struct Dag {
    pub rounds: HashMap<u64, HashMap<[u8; 32], Cert>>,
}

impl Dag {
    #[inline(never)]
    pub fn insert(&mut self, round: u64, key: [u8; 32], cert: Cert) {
        self.rounds.entry(round).or_default().insert(key, cert);
    }
    #[inline(never)]
    pub fn gc(&mut self, below: u64) {
        self.rounds.retain(|r, _| *r >= below);
    }
}

/// Arcs shared by two elements each: each block counted once.
pub static SHARES: Mutex<Vec<Arc<Vec<u64>>>> = Mutex::new(Vec::new());
/// What --read refuses: a float.
pub static RATIO: Mutex<f64> = Mutex::new(0.5);

const NAMES: [&str; 13] = [
    "map", "reg", "tree", "list", "queue", "boxed", "shared", "name", "set", "unset", "peers",
    "dag", "shares",
];
const PEERS_TAG: usize = 11;
const DAG_TAG: usize = 12;
const SHARES_TAG: usize = 13;

fn tagged<R>(tag: usize, f: impl FnOnce() -> R) -> R {
    TAG.with(|t| t.set(tag));
    let r = f();
    TAG.with(|t| t.set(0));
    r
}

fn tree() -> &'static Mutex<BTreeMap<String, Vec<String>>> {
    TREE.get_or_init(|| Mutex::new(BTreeMap::new()))
}

/// One operation on structure @s, with key @k and a coin @c.
fn operate(s: usize, k: u64, c: u64) {
    let insert = c % 5 < 3; // the structures grow, with removals among
    let tag = match s {
        9 => PEERS_TAG,
        10 => SHARES_TAG,
        _ => s + 1,
    };
    tagged(tag, || match s {
        0 => {
            let mut m = MAP.lock().unwrap();
            if insert { m.insert(k, c); } else { m.remove(&k); }
        }
        1 => {
            let mut g = REG.lock().unwrap();
            let m = g.get_or_insert_with(HashMap::new);
            if insert { m.insert(k, vec![k as u8; (c % 200) as usize]); } else { m.remove(&k); }
        }
        2 => {
            let mut t = tree().lock().unwrap();
            let key = format!("key-{k}");
            if insert {
                t.entry(key).or_default().push("x".repeat((c % 40) as usize));
            } else {
                t.remove(&key);
            }
        }
        3 => {
            let mut v = LIST.write().unwrap();
            if insert { v.push(k as u32); } else { v.pop(); }
            if c % 97 == 0 { v.shrink_to_fit(); }
        }
        4 => {
            let mut q = QUEUE.lock().unwrap();
            if insert { q.push_back(k as u16); } else { q.pop_front(); }
        }
        5 => {
            let mut b = BOXED.lock().unwrap();
            if c % 53 == 0 {
                *b = None;
            } else {
                b.get_or_insert_with(|| Box::new(Vec::new())).push(k);
            }
        }
        6 => {
            let mut a = SHARED.lock().unwrap();
            *a = if c % 7 == 0 { None } else { Some(Arc::new(vec![k; (c % 100) as usize])) };
        }
        7 => {
            let mut n = NAME.lock().unwrap();
            if insert { n.push_str("abc"); } else { let half = n.len() / 2; n.truncate(half); }
            if c % 89 == 0 { n.shrink_to_fit(); }
        }
        8 => {
            let mut h = SET.write().unwrap();
            if insert { h.insert(k as u32); } else { h.remove(&(k as u32)); }
        }
        10 => {
            let mut v = SHARES.lock().unwrap();
            if insert {
                let a = Arc::new(vec![k; (c % 50) as usize]);
                v.push(a.clone());
                v.push(a);
            } else if !v.is_empty() {
                let i = (c as usize) % v.len();
                v.swap_remove(i);
            }
        }
        _ => {
            let mut p = PEERS.lock().unwrap();
            let n = p.len() as u64;
            if n > 0 {
                let peer = &mut p[(c % n) as usize];
                if insert { peer.record(k, c); } else { peer.forget(k); }
            }
        }
    })
}

/// The Dag's worker: (round, salt) in, or (round, MAX) to drop the
/// rounds below; its length out.
fn dag_worker(rx: mpsc::Receiver<(u64, u64)>, ack: mpsc::Sender<usize>) {
    let mut dag = Dag { rounds: HashMap::new() };
    for (round, salt) in rx {
        tagged(DAG_TAG, || {
            if salt == u64::MAX {
                dag.gc(round);
            } else {
                let mut key = [0u8; 32];
                key[..8].copy_from_slice(&salt.to_le_bytes());
                let cert = Cert { digest: key, payload: vec![round as u8; (salt % 64) as usize] };
                dag.insert(round, key, cert);
            }
        });
        ack.send(dag.rounds.len()).unwrap();
    }
}

fn run(n: u64) {
    std::thread::scope(|sc| {
        for t in 0..4u64 {
            sc.spawn(move || {
                let mut x = 0x9e3779b97f4a7c15u64 ^ (t + 1) * 0x1234567;
                for i in 0..n {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    operate(((i + t) % 11) as usize, x % 512, x >> 20);
                }
            });
        }
    });
}

fn lens(dag: usize) -> [usize; 13] {
    [
        MAP.lock().unwrap().len(),
        REG.lock().unwrap().as_ref().map_or(0, |m| m.len()),
        tree().lock().unwrap().len(),
        LIST.read().unwrap().len(),
        QUEUE.lock().unwrap().len(),
        BOXED.lock().unwrap().as_ref().map_or(0, |b| b.len()),
        SHARED.lock().unwrap().as_ref().map_or(0, |a| a.len()),
        NAME.lock().unwrap().len(),
        SET.read().unwrap().len(),
        UNSET.get().map_or(0, |v| v.len()),
        PEERS.lock().unwrap().iter().map(|p| p.seen.len()).sum(),
        dag,
        SHARES.lock().unwrap().len(),
    ]
}

fn main() {
    let out = std::io::stdout();
    {
        let mut p = PEERS.lock().unwrap();
        for id in 0..3 {
            p.push(Box::new(Peer { id, name: format!("peer-{id}"), seen: HashMap::new() }));
        }
    }
    let (tx, rx) = mpsc::channel();
    let (ack_tx, ack) = mpsc::channel();
    std::thread::spawn(move || dag_worker(rx, ack_tx));
    let (mut dag_len, mut round) = (0, 16u64);
    extern "C" {
        fn malloc(n: usize) -> *mut u8;
    }
    let m: unsafe extern "C" fn(usize) -> *mut u8 = malloc;
    writeln!(out.lock(), "ready pid={} malloc={:#x}", std::process::id(), m as usize).unwrap();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let mut words = line.split_whitespace();
        match (words.next(), words.next().and_then(|w| w.parse::<u64>().ok())) {
            (Some("init"), _) => {
                tagged(10, || UNSET.get_or_init(|| vec![7; 3]));
                writeln!(out.lock(), "set unset_len=3").unwrap();
            }
            (Some("churn"), Some(n)) => {
                // the map freed and built again, over and over, while read
                for i in 0..n {
                    tagged(2, || {
                        let mut g = REG.lock().unwrap();
                        *g = None;
                        let mut m = HashMap::new();
                        for k in 0..(i % 97) {
                            m.insert(k, vec![0u8; k as usize]);
                        }
                        *g = Some(m);
                    });
                }
                let l = lens(dag_len);
                writeln!(out.lock(), "churned reg_len={} reg_bytes={} ratio={}", l[1],
                         LIVE[2].load(Relaxed), *RATIO.lock().unwrap()).unwrap();
            }
            (Some("drop"), _) => {
                let gone = PEERS.lock().unwrap().remove(1);
                drop(gone);
                writeln!(out.lock(), "dropped peers_len={} peers_bytes={}", lens(dag_len)[10],
                         LIVE[PEERS_TAG].load(Relaxed)).unwrap();
            }
            (Some("run"), Some(n)) => {
                run(n);
                for i in 0..n / 10 {
                    round += 1;
                    tx.send((round / 8, i * 7919)).unwrap();
                    ack.recv().unwrap();
                }
                tx.send((round / 8 - 2, u64::MAX)).unwrap();
                dag_len = ack.recv().unwrap();
                let l = lens(dag_len);
                let mut reply = String::from("ran");
                for (i, name) in NAMES.iter().enumerate() {
                    reply += &format!(" {name}_len={} {name}_bytes={}", l[i], LIVE[i + 1].load(Relaxed));
                }
                writeln!(out.lock(), "{reply}").unwrap();
            }
            _ => break,
        }
    }
}
