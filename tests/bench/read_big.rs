// SPDX-License-Identifier: GPL-2.0
//! read_big.rs - `make bench`'s Rust target for --read: a static
//! Mutex<Option<HashMap<u64, Vec<u8>>>> of N entries (argument 1,
//! 1,000,000 by default), then on "spin" a second of lookups in it,
//! replying "OPS ops": what memwatch reading the map every interval costs
//! the program, if anything.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::Mutex;
use std::time::Instant;

pub static BIG: Mutex<Option<HashMap<u64, Vec<u8>>>> = Mutex::new(None);

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let mut m = HashMap::new();
    for k in 0..n {
        m.insert(k, vec![k as u8; (k % 32) as usize]);
    }
    *BIG.lock().unwrap() = Some(m);
    let out = std::io::stdout();
    writeln!(out.lock(), "ready n={n}").unwrap();
    let (mut x, mut acc) = (1u64, 0usize);
    for line in std::io::stdin().lock().lines() {
        if line.unwrap() != "spin" {
            break;
        }
        let (t, mut ops) = (Instant::now(), 0u64);
        while t.elapsed().as_millis() < 1000 {
            for _ in 0..1000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let g = BIG.lock().unwrap();
                acc += g.as_ref().unwrap().get(&((x >> 16) % n)).map_or(0, |v| v.len());
                ops += 1;
            }
        }
        writeln!(out.lock(), "{ops} ops {}", acc % 7).unwrap();
    }
}
