// Names the samples of a stripped Go binary from its .gopclntab (the Temporal CLI ships
// stripped, so perf shows bare addresses). Reads "weight address" lines on stdin (perf script
// -G -F ip output, one per sample) and prints self time per function, highest first.
// With -inclusive it reads whole callchains instead (perf script -F ip,dso: one frame per line,
// a blank line between samples) and prints, per function, the share of samples it is on the
// stack of: which caller the time is spent under (session 8: the visibility queue's writes).
// Usage: go run ./bench/go-symbols [-inclusive] <binary> < addresses
package main

import (
	"bufio"
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

func main() {
	args := os.Args[1:]
	inclusive := len(args) > 0 && args[0] == "-inclusive"
	if inclusive {
		args = args[1:]
	}
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: go-symbols [-inclusive] <go binary> < \"weight address\" lines | callchains")
		os.Exit(2)
	}
	f, err := elf.Open(args[0])
	if err != nil {
		panic(err)
	}
	data, err := f.Section(".gopclntab").Data()
	if err != nil {
		panic(err)
	}
	table, err := gosym.NewTable(nil, gosym.NewLineTable(data, f.Section(".text").Addr))
	if err != nil {
		panic(err)
	}
	if inclusive {
		printShares(inclusiveShares(f, table))
		return
	}
	self := map[string]float64{}
	total := 0.0
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		fields := strings.Fields(in.Text())
		if len(fields) < 2 {
			continue
		}
		weight, _ := strconv.ParseFloat(fields[0], 64)
		name := fields[1]
		// A non-PIE static binary: perf's addresses are the virtual addresses themselves.
		if pc, err := strconv.ParseUint(strings.TrimPrefix(name, "0x"), 16, 64); err == nil {
			name = "?"
			if fn := table.PCToFunc(pc); fn != nil {
				name = fn.Name
			}
		}
		self[name] += weight
		total += weight
	}
	for n := range self {
		self[n] /= total
	}
	printShares(self)
}

// inclusiveShares reads perf callchains; frames in the binary are file offsets there, turned
// into addresses by the first loadable segment. Frames elsewhere (the kernel) count as one name.
func inclusiveShares(f *elf.File, table *gosym.Table) map[string]float64 {
	base := uint64(0)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			base = p.Vaddr - p.Off
			break
		}
	}
	shares := map[string]float64{}
	onStack := map[string]bool{}
	samples := 0.0
	flush := func() {
		if len(onStack) > 0 {
			samples++
			for n := range onStack {
				shares[n]++
			}
		}
		onStack = map[string]bool{}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		fields := strings.Fields(in.Text())
		if len(fields) == 0 {
			flush()
			continue
		}
		name := "[outside the binary]"
		if len(fields) > 1 && strings.Contains(fields[1], "temporal") {
			if off, err := strconv.ParseUint(fields[0], 16, 64); err == nil {
				if fn := table.PCToFunc(off + base); fn != nil {
					name = fn.Name
				}
			}
		}
		onStack[name] = true
	}
	flush()
	for n := range shares {
		shares[n] /= samples
	}
	return shares
}

func printShares(shares map[string]float64) {
	names := make([]string, 0, len(shares))
	for n := range shares {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return shares[names[i]] > shares[names[j]] })
	for _, n := range names {
		fmt.Printf("%6.2f%% %s\n", 100*shares[n], n)
	}
}
