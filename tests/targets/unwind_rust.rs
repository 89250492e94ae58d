// SPDX-License-Identifier: GPL-2.0
//! unwind_rust.rs - integration target for panics through probed frames:
//! memwatch must never change what a program does, and a Rust panic
//! unwinds through every frame it crosses (built -O2, panic=unwind).
//!
//! Each "run", on two threads at once, per round:
//!   - `reg_insert` (a structure's insert) panics for a bad key after
//!     allocating; `catch_unwind` catches it two frames up (`via`);
//!   - `outer_add` -> `middle` -> `reg_insert`: a panic crossing two probed
//!     frames and a plain one, caught above `outer_add`;
//!   - `chk_insert` catches a panic of its own inside and returns 1: its
//!     return must still be seen.
//! The reply tallies what memwatch must report: calls, returned values,
//! and live bytes allocated inside `reg_insert`. "clear" drops every
//! entry, "quit" exits 0. Its own I/O is raw reads and writes on fds 0
//! and 1, so it allocates nothing but what it tallies.

use std::fs::File;
use std::io::{Read, Write};
use std::mem::ManuallyDrop;
use std::os::unix::io::FromRawFd;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::sync::{Arc, Barrier};

const THREADS: usize = 2;
const KEYS: usize = 64;

pub struct Entry {
    key: String,
    value: i64,
}

/// One thread's structure: preallocated slots, filled inside `reg_insert`.
pub struct Registry {
    slots: Vec<Option<Box<Entry>>>,
}

static REG_CALLS: AtomicI64 = AtomicI64::new(0);
static REG_RETURNED: AtomicI64 = AtomicI64::new(0);
static REG_BYTES: AtomicI64 = AtomicI64::new(0);
static OUTER_CALLS: AtomicI64 = AtomicI64::new(0);
static CHK_CALLS: AtomicI64 = AtomicI64::new(0);
static CHK_RETURNED: AtomicI64 = AtomicI64::new(0);
static CAUGHT: AtomicI64 = AtomicI64::new(0);
/// reg_insert calls a panic unwound (directly, or under outer_add)
static REG_UNWOUND: AtomicI64 = AtomicI64::new(0);

/// The value, through a volatile read: the compiler cannot see through it,
/// so the call before it stays a call (std::hint::black_box is newer than
/// Debian's rustc).
#[inline(always)]
fn opaque(v: i32) -> i32 {
    // SAFETY: a read of a live local.
    unsafe { std::ptr::read_volatile(&v) }
}

fn entry_bytes(key: &str) -> i64 {
    (std::mem::size_of::<Entry>() + key.len()) as i64
}

/// Inserts or replaces `key`: 1 if new, 0 if replaced. A key that starts
/// with '!' panics, after a temporary allocation (dropped as it unwinds).
#[inline(never)]
pub fn reg_insert(r: &mut Registry, key: &str) -> i32 {
    let owned = String::from(key);
    if key.starts_with('!') {
        panic!("bad key");
    }
    let h = key.bytes().fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
    let slot = &mut r.slots[h as usize % KEYS];
    if let Some(e) = slot {
        if e.key == key {
            e.value += 1;
            return 0;
        }
        REG_BYTES.fetch_sub(entry_bytes(&e.key), Ordering::Relaxed);
    }
    *slot = Some(Box::new(Entry { key: owned, value: 1 }));
    REG_BYTES.fetch_add(entry_bytes(key), Ordering::Relaxed);
    1
}

#[inline(never)]
pub fn via(r: &mut Registry, key: &str) -> i32 {
    let v = reg_insert(r, key);
    opaque(v)
}

#[inline(never)]
pub fn middle(r: &mut Registry, key: &str) -> i32 {
    // held across the call: its drop is cleanup code the panic runs here
    let note = "m".repeat(64);
    let v = reg_insert(r, key) + 1;
    opaque(v + (note.len() as i32 & 0))
}

#[inline(never)]
pub fn outer_add(r: &mut Registry, key: &str) -> i32 {
    let v = middle(r, key) - 1;
    opaque(v)
}

#[inline(never)]
fn parse_or_panic(key: &str) {
    if key.starts_with('!') {
        panic!("unparsable");
    }
}

/// Survives a panic of its own: catches it inside, returns 1 either way.
#[inline(never)]
pub fn chk_insert(key: &str) -> i32 {
    if catch_unwind(|| parse_or_panic(key)).is_err() {
        CAUGHT.fetch_add(1, Ordering::Relaxed);
    }
    opaque(1)
}

fn round_of(r: &mut Registry, t: usize, n: usize) {
    let mut good = [0u8; 32];
    let mut bad = [0u8; 32];
    let good = fmt_key(&mut good, format_args!("t{}-key-{}", t, n % 40));
    let bad = fmt_key(&mut bad, format_args!("!t{}-bad-{}", t, n));

    REG_CALLS.fetch_add(1, Ordering::Relaxed);
    REG_RETURNED.fetch_add(via(r, good) as i64, Ordering::Relaxed);
    REG_CALLS.fetch_add(1, Ordering::Relaxed);
    match catch_unwind(AssertUnwindSafe(|| via(r, bad))) {
        Ok(v) => {
            REG_RETURNED.fetch_add(v as i64, Ordering::Relaxed);
        }
        Err(_) => {
            CAUGHT.fetch_add(1, Ordering::Relaxed);
            REG_UNWOUND.fetch_add(1, Ordering::Relaxed);
        }
    }
    OUTER_CALLS.fetch_add(1, Ordering::Relaxed);
    REG_CALLS.fetch_add(1, Ordering::Relaxed);
    if catch_unwind(AssertUnwindSafe(|| outer_add(r, bad))).is_err() {
        CAUGHT.fetch_add(1, Ordering::Relaxed);
        REG_UNWOUND.fetch_add(1, Ordering::Relaxed);
    }
    CHK_CALLS.fetch_add(1, Ordering::Relaxed);
    CHK_RETURNED.fetch_add(chk_insert(if n % 2 == 1 { bad } else { good }) as i64,
                           Ordering::Relaxed);
}

/// Formats into @buf without allocating.
fn fmt_key<'a>(buf: &'a mut [u8; 32], args: std::fmt::Arguments) -> &'a str {
    let mut cur = std::io::Cursor::new(&mut buf[..]);
    cur.write_fmt(args).expect("key fits");
    let n = cur.position() as usize;
    std::str::from_utf8(&buf[..n]).expect("ascii")
}

fn clear(r: &mut Registry) {
    for s in r.slots.iter_mut() {
        if let Some(e) = s.take() {
            REG_BYTES.fetch_sub(entry_bytes(&e.key), Ordering::Relaxed);
        }
    }
}

fn say(out: &mut File, args: std::fmt::Arguments) {
    let mut buf = [0u8; 512];
    let mut cur = std::io::Cursor::new(&mut buf[..]);
    let ok = cur.write_fmt(args).is_ok();
    let n = cur.position() as usize;
    if !ok || out.write_all(&buf[..n]).is_err() {
        std::process::exit(3);
    }
}

fn reply(out: &mut File, what: &str) {
    let l = |a: &AtomicI64| a.load(Ordering::Relaxed);
    say(out, format_args!(
        "{} reg_calls={} reg_returned={} reg_bytes={} reg_unwound={} outer_calls={} chk_calls={} chk_returned={} caught={}\n",
        what, l(&REG_CALLS), l(&REG_RETURNED), l(&REG_BYTES), l(&REG_UNWOUND), l(&OUTER_CALLS),
        l(&CHK_CALLS), l(&CHK_RETURNED), l(&CAUGHT)));
}

fn reset() {
    for a in [&REG_CALLS, &REG_RETURNED, &REG_BYTES, &REG_UNWOUND, &OUTER_CALLS, &CHK_CALLS,
              &CHK_RETURNED, &CAUGHT] {
        a.store(0, Ordering::Relaxed);
    }
}

extern "C" {
    fn malloc(size: usize) -> *mut u8;
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50);
    // SAFETY: fds 0 and 1 stay open for the process's life; ManuallyDrop
    // keeps them from being closed.
    let mut input = ManuallyDrop::new(unsafe { File::from_raw_fd(0) });
    let mut out = ManuallyDrop::new(unsafe { File::from_raw_fd(1) });
    let command = Arc::new(AtomicU32::new(0));
    let go = Arc::new(Barrier::new(THREADS + 1));
    let done = Arc::new(Barrier::new(THREADS + 1));

    std::panic::set_hook(Box::new(|_| {})); // caught panics say nothing
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (command, go, done) = (command.clone(), go.clone(), done.clone());
            std::thread::spawn(move || {
                let mut r = Registry { slots: (0..KEYS).map(|_| None).collect() };
                // warm-up, before "ready": the first panic of a thread
                // sets up what it needs
                round_of(&mut r, t, 0);
                clear(&mut r);
                done.wait();
                loop {
                    go.wait();
                    match command.load(Ordering::Relaxed) {
                        1 => (0..rounds).for_each(|n| round_of(&mut r, t, n)),
                        2 => clear(&mut r),
                        _ => return,
                    }
                    done.wait();
                }
            })
        })
        .collect();
    done.wait();
    reset();
    let malloc_addr = malloc as unsafe extern "C" fn(usize) -> *mut u8 as usize;
    say(&mut out, format_args!("ready pid={} malloc={:#x}\n", std::process::id(), malloc_addr));
    let mut line = [0u8; 64];
    loop {
        let n = input.read(&mut line).unwrap_or(0);
        let c = match &line[..n] {
            [b'r', b'u', b'n', ..] => 1,
            [b'c', b'l', b'e', b'a', b'r', ..] => 2,
            _ => 3,
        };
        command.store(c, Ordering::Relaxed);
        go.wait();
        if c == 3 {
            break;
        }
        done.wait();
        reply(&mut out, if c == 1 { "ran" } else { "cleared" });
    }
    for w in workers {
        w.join().expect("worker");
    }
}
