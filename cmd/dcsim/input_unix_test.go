//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe (as /dev/stdin or <(...) are) can be read once: validate
// read it to tell a sweep from a scenario, then read it again for the
// scenario and found it empty, so a broken scenario said ok.
func TestValidatePipe(t *testing.T) {
	for _, c := range []struct {
		name, text string
		code       int
		out        string // stdout, or stderr's prefix when code is 2
	}{
		{"broken", "name: x\nworkload:\n  lod: 0.5\n", 2, "dcsim: PIPE:3: workload.lod"},
		{"good", "name: x\nduration: 20us\ntopology: {kind: star, hosts: 4}\n", 0, "PIPE: ok\n"},
		{"empty", "", 2, "dcsim: PIPE: empty: no scenario or sweep to validate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "pipe")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				f.WriteString(c.text)
				f.Close()
			}()
			code, stdout, stderr := runCLI(t, "validate", fifo)
			got := stdout
			if c.code == 2 {
				got = stderr
			}
			got = strings.ReplaceAll(got, fifo, "PIPE")
			if code != c.code || !strings.HasPrefix(got, c.out) {
				t.Errorf("got exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, c.code, c.out)
			}
		})
	}
}
