// SPDX-License-Identifier: GPL-2.0
//
// go_cgo.go - integration target for a Go program with cgo: its C
// allocations are malloc's (heap mode sees them), its Go ones are not.
// Built by go build, as releases are; cgo links it against libc, and its
// DWARF holds C units beside the Go ones.
//
// keep(w, n) takes n bytes from C.malloc and holds them in worker w's
// list, returning n; drop(w, k) frees the k oldest blocks of that list,
// returning their bytes. "run" has four goroutines keep 250 blocks each
// and drop 100 each, then replies with its tally:
//
//	keeps, drops   calls made
//	live, blocks   bytes and blocks held, all from C.malloc
//
// The workload runs once before "ready", so that the runtime's threads
// (each with a C allocation of its own) exist before memwatch attaches.
// "quit" exits 0.
package main

/*
#include <stdlib.h>
*/
import "C"

import (
	"bufio"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

type block struct {
	p unsafe.Pointer
	n int
}

const workers = 4

var (
	held                       [workers][]block
	live, blocks, keeps, drops atomic.Int64
)

//go:noinline
func keep(w, n int) int {
	held[w] = append(held[w], block{C.malloc(C.size_t(n)), n})
	live.Add(int64(n))
	blocks.Add(1)
	return n
}

//go:noinline
func drop(w, k int) int {
	freed := 0
	for ; k > 0 && len(held[w]) > 0; k-- {
		C.free(held[w][0].p)
		freed += held[w][0].n
		held[w] = held[w][1:]
		blocks.Add(-1)
	}
	live.Add(-int64(freed))
	return freed
}

func run() {
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 250; i++ {
				keep(w, 100+w*10+i%7)
				keeps.Add(1)
				if i%5 == 4 {
					drop(w, 2)
					drops.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)

	run() // warm-up: the runtime's threads
	for w := 0; w < workers; w++ {
		drop(w, len(held[w]))
	}
	keeps.Store(0)
	drops.Store(0)
	fmt.Fprintf(out, "ready pid=%d malloc=0x0\n", os.Getpid())
	out.Flush()
	for in.Scan() {
		if in.Text() != "run" {
			break
		}
		run()
		fmt.Fprintf(out, "ran keeps=%d drops=%d live=%d blocks=%d\n",
			keeps.Load(), drops.Load(), live.Load(), blocks.Load())
		out.Flush()
	}
	os.Exit(0)
}
