package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Assert reports.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.fatals = append(r.fatals, fmt.Sprint(args...))
	runtime.Goexit()
}

// assert runs Assert on its own goroutine, which a fatal ends.
func assert(path string, got []byte) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Assert(r, path, got)
	}()
	<-done
	return r
}

// setUpdate sets -update for the test and restores it after.
func setUpdate(t *testing.T, updating bool) {
	was := *update
	*update = updating
	t.Cleanup(func() { *update = was })
}

func TestAssert(t *testing.T) {
	setUpdate(t, false) // also under make update-golden
	path := filepath.Join(t.TempDir(), "want.txt")
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	if r := assert(path, []byte("a\nb\nc\n")); len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("equal output: got errors %q, fatals %q", r.errors, r.fatals)
	}

	r := assert(path, []byte("a\nB\nc\n"))
	want := "the output differs from " + path + " from line 2 on (rerun with -update if the change is intended)\n" +
		"--- got\nB\nc\n\n--- want\nb\nc\n"
	if len(r.errors) != 1 || r.errors[0] != want || len(r.fatals) != 0 {
		t.Errorf("different output: got errors %q, fatals %q; want the error %q", r.errors, r.fatals, want)
	}

	r = assert(path, []byte("a\nb\n"))
	if len(r.errors) != 1 || !strings.HasSuffix(r.errors[0], "from line 3 on (rerun with -update if the change is intended)\n--- got\n\n--- want\nc\n") {
		t.Errorf("shorter output: got errors %q", r.errors)
	}

	missing := filepath.Join(t.TempDir(), "missing.txt")
	r = assert(missing, []byte("a\n"))
	if len(r.fatals) != 1 || !strings.HasSuffix(r.fatals[0], "no such file or directory (rerun with -update to create it)") {
		t.Errorf("missing golden file: got fatals %q", r.fatals)
	}
}

func TestAssertUpdate(t *testing.T) {
	setUpdate(t, true)
	path := filepath.Join(t.TempDir(), "new", "dir", "want.txt")
	if r := assert(path, []byte("fresh\n")); len(r.errors)+len(r.fatals) != 0 {
		t.Fatalf("update: got errors %q, fatals %q", r.errors, r.fatals)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "fresh\n" {
		t.Errorf("update wrote %q (%v), want the output", got, err)
	}
}

func TestLinesFrom(t *testing.T) {
	lines := strings.Split(strings.Repeat("x\n", 25), "\n") // 26 lines, the last empty
	for _, tt := range []struct {
		from int
		want string
	}{
		{0, strings.Repeat("x\n", 5) + "<21 more lines>"},
		{22, "x\nx\nx\n"},
		{26, "<end>"},
	} {
		if got := linesFrom(lines, tt.from); got != tt.want {
			t.Errorf("linesFrom(%d) = %q, want %q", tt.from, got, tt.want)
		}
	}
}
