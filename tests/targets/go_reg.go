// SPDX-License-Identifier: GPL-2.0
//
// go_reg.go - integration target for Go programs: memwatch must never
// change what a Go program does, and must count each call once and read
// its arguments and results by Go's register ABI. Built as releases are
// (go build: optimised, inlining on; the probed functions noinline).
//
// A registry of names shared by goroutines. "run" starts, per round, one
// goroutine per worker that descends to a depth that changes every call
// and calls regInsert there, so some calls find too little stack left:
// their prologue calls runtime.morestack, which copies the stack and
// restarts the function. Some inserts grow the stack inside the call (a
// deep recursion), and the collector runs (runtime.GC) between rounds.
//
// regInsert(r, name, n) adds the keys name/0 .. name/n-1 and returns how
// many were new; regRemove(r, name, n) takes them out and returns how many
// were there. "name" is a string (two registers), so argument 3, n, is in
// the fourth integer register: the Nth source parameter is not the Nth
// register. A name starting with '!' makes regInsert panic; its caller
// recovers. bump(n) returns n + 1 and is a leaf, whose prologue has no
// stack check. The reply tallies what memwatch must report:
//
//	inserts, removes         calls made
//	one                      inserts - removes (--delta one)
//	arg                      sum of n inserted - sum of n removed (arg3)
//	ret                      keys held now (--delta ret)
//	recovered                inserts that panicked (counted by one and
//	                         arg, as calls made; not by ret)
//	bumps, bumped            calls of bump, and the sum of what it returned
//	entry_moves              calls that grow no stack inside, during
//	                         which the caller's stack moved anyway: their
//	                         prologue went through runtime.morestack
//
// "quit" exits 0. Its I/O is a bufio writer on stdout.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

type registry struct {
	mu   sync.Mutex
	keys map[string]int
}

var reg = &registry{keys: map[string]int{}}

var (
	inserts, removes, argSum, entryMoves, recovered atomic.Int64
	bumps, bumped                                   int64
)

// grow recurses with a frame large enough that depth 40 needs more than
// a new goroutine's stack: the stack is copied inside the probed call.
//
//go:noinline
func grow(depth int) int {
	var pad [256]byte
	pad[depth%len(pad)] = byte(depth)
	if depth == 0 {
		return int(pad[0])
	}
	return grow(depth-1) + int(pad[depth%len(pad)])
}

//go:noinline
func regInsert(r *registry, name string, n int) int {
	if name[0] == '!' {
		panic("bad name: " + name)
	}
	if n == 3 {
		grow(40)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	added := 0
	for i := 0; i < n; i++ {
		k := name + "/" + strconv.Itoa(i)
		if _, ok := r.keys[k]; !ok {
			r.keys[k] = i
			added++
		}
	}
	return added
}

//go:noinline
func regRemove(r *registry, name string, n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	removed := 0
	for i := 0; i < n; i++ {
		k := name + "/" + strconv.Itoa(i)
		if _, ok := r.keys[k]; ok {
			delete(r.keys, k)
			removed++
		}
	}
	return removed
}

// descend calls f at @depth frames below, each of 64 bytes or so: the
// call lands at every distance from the end of the goroutine's stack.
//
//go:noinline
func descend(depth int, f func()) {
	var pad [48]byte
	if depth == 0 {
		f()
		return
	}
	pad[depth%len(pad)] = 1
	descend(depth-1, f)
	if pad[depth%len(pad)] != 1 {
		panic("stack")
	}
}

// insertAt calls regInsert at @depth, noting whether its caller's stack
// moved during a call that grows none inside it; a panic of regInsert
// (a bad name) is recovered here.
func insertAt(depth int, name string, n int) {
	descend(depth, func() {
		var here int
		before := uintptr(unsafe.Pointer(&here))
		defer func() {
			if recover() != nil {
				recovered.Add(1)
			}
		}()
		inserts.Add(1)
		argSum.Add(int64(n))
		regInsert(reg, name, n)
		if n != 3 && uintptr(unsafe.Pointer(&here)) != before {
			entryMoves.Add(1)
		}
	})
}

// bump is a leaf: no frame, so no stack check in its prologue.
//
//go:noinline
func bump(n int) int {
	return n + 1
}

func remove(name string, n int) {
	regRemove(reg, name, n)
	removes.Add(1)
	argSum.Add(-int64(n))
}

// One worker's round: 25 inserts in fresh goroutines at changing depths,
// some of them again (a key already held: fewer new), and removes of
// most, some of names never inserted.
func round(w, r int) {
	for i := 0; i < 25; i++ {
		name := fmt.Sprintf("w%d-r%d-%d", w, r, i)
		n := 1 + i%3
		done := make(chan struct{})
		go func() {
			insertAt((r*25+i)%120, name, n)
			close(done)
		}()
		<-done
		if i%5 == 4 {
			insertAt(i, name, n) // held already: returns 0
		}
		if i%10 == 9 {
			insertAt(i, "!"+name, n) // panics, recovered
		}
		switch {
		case i%4 == 0: // kept
		case i%7 == 3:
			remove(name+"-never", n)
		default:
			remove(name, n)
		}
	}
}

func run(workers, rounds int) {
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				round(w, r)
				if r%4 == 3 {
					runtime.GC()
				}
			}
		}(w)
	}
	wg.Wait()
}

func main() {
	rounds := 8
	if len(os.Args) > 1 {
		if v, err := strconv.Atoi(os.Args[1]); err == nil {
			rounds = v
		}
	}
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	fmt.Fprintf(out, "ready pid=%d malloc=0x0\n", os.Getpid())
	out.Flush()
	for in.Scan() {
		if in.Text() != "run" {
			break
		}
		run(4, rounds)
		for i := 0; i < 100; i++ {
			bumps++
			bumped += int64(bump(i % 7))
		}
		reg.mu.Lock()
		held := len(reg.keys)
		reg.mu.Unlock()
		fmt.Fprintf(out, "ran inserts=%d removes=%d one=%d arg=%d ret=%d entry_moves=%d recovered=%d bumps=%d bumped=%d\n",
			inserts.Load(), removes.Load(), inserts.Load()-removes.Load(),
			argSum.Load(), held, entryMoves.Load(), recovered.Load(), bumps, bumped)
		out.Flush()
	}
	os.Exit(0)
}
