// SPDX-License-Identifier: GPL-2.0
//! chains_rust.rs - chains.c's protocol from a Rust program built as a
//! release is (--release: opt-level 2, no frame pointers, panic = unwind).
//! Six chains allocate from known call chains: through a C callback in
//! libchains.so, through glibc's qsort calling an `extern "C"`
//! comparator, or straight down; in the main thread or a `std::thread`
//! worker. Each leaf takes glibc's backtrace(3) of itself, then mallocs
//! its chain's size and keeps the block.
//! Commands: run, chain K ("chain K size S count N same Y bt A0 A1 ..."),
//! quit.

use std::ffi::c_void;
use std::hint::black_box;
use std::io::{BufRead, Write};
use std::sync::{Arc, Barrier, Mutex};

const NCHAINS: usize = 6;
const ROUNDS: usize = 50;
const MAXF: usize = 40;

extern "C" {
    fn backtrace(buf: *mut *mut c_void, size: i32) -> i32;
    fn malloc(n: usize) -> *mut c_void;
    fn qsort(base: *mut c_void, n: usize, size: usize,
             cmp: extern "C" fn(*const c_void, *const c_void) -> i32);
    fn chains_each(f: extern "C" fn(*mut c_void), arg: *mut c_void, times: i32);
}

struct Chain {
    depth: u32,
    via: u32, // 0 the library's callback, 1 qsort, 2 direct
    in_worker: bool,
    size: usize,
    bt: Vec<usize>,
    count: u64,
    same: bool,
}

static CHAINS: Mutex<Vec<Chain>> = Mutex::new(Vec::new());
static KEPT: Mutex<Vec<usize>> = Mutex::new(Vec::new());
static SORTING: Mutex<usize> = Mutex::new(0);

#[inline(never)]
fn leaf(k: usize) {
    let mut bt = [std::ptr::null_mut::<c_void>(); MAXF];
    let n = unsafe { backtrace(bt.as_mut_ptr(), MAXF as i32) } as usize;
    let size = CHAINS.lock().unwrap()[k].size;
    let p = unsafe { malloc(size) };
    let frames: Vec<usize> = bt[..n].iter().map(|&a| a as usize).collect();
    let mut chains = CHAINS.lock().unwrap();
    let c = &mut chains[k];

    if c.count == 0 {
        c.bt = frames;
        c.same = true;
    } else if c.bt.len() != frames.len() || c.bt[1..] != frames[1..] {
        c.same = false;
    }
    c.count += 1;
    KEPT.lock().unwrap().push(p as usize);
}

extern "C" fn on_item(arg: *mut c_void) {
    leaf(arg as usize);
    black_box(arg);
}

extern "C" fn by_value(a: *const c_void, b: *const c_void) -> i32 {
    leaf(*SORTING.lock().unwrap());
    unsafe { *(a as *const i32) - *(b as *const i32) }
}

#[inline(never)]
fn descend(k: usize, via: u32, levels: u32) {
    if levels > 0 {
        descend(k, via, levels - 1);
    } else if via == 0 {
        unsafe { chains_each(on_item, k as *mut c_void, 1) };
    } else if via == 1 {
        let mut pair = [2i32, 1i32]; // two items: one comparison
        *SORTING.lock().unwrap() = k;
        unsafe { qsort(pair.as_mut_ptr() as *mut c_void, 2, 4, by_value) };
        black_box(&pair);
    } else {
        leaf(k);
    }
    black_box(levels); // every level a frame: no tail call
}

#[inline(never)]
fn run_chains(in_worker: bool) {
    for _ in 0..ROUNDS {
        for k in 0..NCHAINS {
            let (w, via, depth) = {
                let c = &CHAINS.lock().unwrap()[k];
                (c.in_worker, c.via, c.depth)
            };
            if w == in_worker {
                descend(k, via, depth);
            }
        }
    }
    black_box(in_worker);
}

fn main() {
    let mut out = std::io::stdout();
    {
        let mut chains = CHAINS.lock().unwrap();
        for k in 0..NCHAINS {
            chains.push(Chain { depth: 2 + 3 * k as u32, via: (k % 3) as u32,
                                in_worker: k % 2 == 1, size: 1000 + 16 * k,
                                bt: Vec::with_capacity(MAXF), count: 0, same: false });
        }
        KEPT.lock().unwrap().reserve(NCHAINS * ROUNDS * 2);
        let mut warm = [std::ptr::null_mut::<c_void>(); 4];
        unsafe { backtrace(warm.as_mut_ptr(), 4) }; // loads libgcc_s before anyone watches
    }
    let go = Arc::new(Barrier::new(2));
    let done = Arc::new(Barrier::new(2));
    let (g, d) = (go.clone(), done.clone());
    let worker = std::thread::spawn(move || loop {
        g.wait();
        if KEPT.lock().unwrap().capacity() == 0 {
            return;
        }
        run_chains(true);
        d.wait();
    });
    let m: unsafe extern "C" fn(usize) -> *mut c_void = malloc;
    writeln!(out, "ready pid={} malloc={:#x}", std::process::id(), m as usize).unwrap();
    out.flush().unwrap();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let words: Vec<&str> = line.split_whitespace().collect();
        match (words.first(), words.get(1).and_then(|w| w.parse::<usize>().ok())) {
            (Some(&"run"), _) => {
                run_chains(false);
                go.wait();
                done.wait();
                writeln!(out, "ran chains={}", NCHAINS).unwrap();
            }
            (Some(&"chain"), Some(k)) if k < NCHAINS => {
                let chains = CHAINS.lock().unwrap();
                let c = &chains[k];
                let bt: Vec<String> = c.bt.iter().map(|a| format!("{:#x}", a)).collect();
                writeln!(out, "chain {} size {} count {} same {} bt {}", k, c.size, c.count,
                         c.same as i32, bt.join(" ")).unwrap();
            }
            _ => break,
        }
        out.flush().unwrap();
    }
    *KEPT.lock().unwrap() = Vec::new(); // the worker's sign to end
    go.wait();
    worker.join().unwrap();
}
