package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(small, 6); err != nil || string(b) != "hello\n" {
		t.Fatalf("a file at the cap: %q %v", b, err)
	}
	if _, err := Read(small, 5); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), small) || !strings.Contains(err.Error(), "6 bytes") {
		t.Fatalf("a file over the cap: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// opening a FIFO for reading waits for a writer: refused before that
	if _, err := Read(fifo, 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a FIFO") {
		t.Fatalf("a FIFO: %v", err)
	}
	if _, err := Read("/dev/zero", 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a character device") {
		t.Fatalf("/dev/zero: %v", err)
	}
	if _, err := Read(dir, 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Fatalf("a directory: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 1<<20); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
	// a symbolic link to a regular file is read; to a FIFO, refused
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(link, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("a link to a FIFO: %v", err)
	}
}
