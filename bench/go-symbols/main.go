// Names the samples of a stripped Go binary from its .gopclntab (the Temporal CLI ships
// stripped, so perf shows bare addresses). Reads "weight address" lines on stdin (perf script
// -G -F ip output, one per sample) and prints self time per function, highest first.
// Usage: go run ./bench/go-symbols <binary> < addresses
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
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go-symbols <go binary> < \"weight address\" lines")
		os.Exit(2)
	}
	f, err := elf.Open(os.Args[1])
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
	names := make([]string, 0, len(self))
	for n := range self {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return self[names[i]] > self[names[j]] })
	for _, n := range names {
		fmt.Printf("%6.2f%% %s\n", 100*self[n]/total, n)
	}
}
