// SPDX-License-Identifier: GPL-2.0
//! read_rust.rs - integration target for --read on Rust: standard
//! containers in statics, in the wrappers statics sit in, that memwatch
//! reads from the target's memory by their DWARF types while four
//! threads change them. Built --release style (-C opt-level=2) with
//! debug = 2 (-g).
//!
//! The oracle knows no layout: a counting #[global_allocator] charges
//! every byte allocated, freed or reallocated to the structure the
//! thread is working on (a thread-local tag set around each operation),
//! so a structure's tally is the bytes its operations left live: the
//! bytes it retains.
//!
//! Commands: "run N" has four threads do N operations each, spread over
//! the structures, then, quiescent, replies "ran" and, for each
//! structure S, "S_len=L S_bytes=B"; "init" sets the OnceLock UNSET
//! was until then; "quit".

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, RwLock};

const NTAGS: usize = 12;
static LIVE: [AtomicI64; NTAGS] = [const { AtomicI64::new(0) }; NTAGS];
thread_local! { static TAG: Cell<usize> = const { Cell::new(0) }; }

fn charge(delta: i64) {
    let tag = TAG.try_with(|t| t.get()).unwrap_or(0);
    LIVE[tag].fetch_add(delta, Relaxed);
}

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            charge(l.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            charge(l.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        charge(-(l.size() as i64));
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            charge(new as i64 - l.size() as i64);
        }
        q
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

const NAMES: [&str; 10] = [
    "map", "reg", "tree", "list", "queue", "boxed", "shared", "name", "set", "unset",
];

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
    tagged(s + 1, || match s {
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
        _ => {
            let mut h = SET.write().unwrap();
            if insert { h.insert(k as u32); } else { h.remove(&(k as u32)); }
        }
    })
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
                    operate(((i + t) % 9) as usize, x % 512, x >> 20);
                }
            });
        }
    });
}

fn lens() -> [usize; 10] {
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
    ]
}

fn main() {
    let out = std::io::stdout();
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
            (Some("run"), Some(n)) => {
                run(n);
                let l = lens();
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
