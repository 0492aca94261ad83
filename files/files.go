// Package files reads the small files pricerig is handed — sources.yaml, a keystore password, a
// keystore's key files — with a size cap, and refuses anything that is not a regular file: a
// path to /dev/zero must not fill the memory, and a FIFO must not block a command forever (a
// read blocked in the kernel does not see Ctrl-C).
package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Caps of the files pricerig reads, far above any real one.
const (
	MaxSpec     = 1 << 20  // sources.yaml
	MaxPassword = 64 << 10 // a keystore password file
	MaxKey      = 64 << 10 // one go-ethereum keystore file (about 500 bytes)
)

var (
	// ErrNotRegular is a path to a device, a FIFO, a socket or a directory.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is a file larger than the cap of what it should hold.
	ErrTooLarge = errors.New("file too large")
)

// Read returns the content of the regular file at path, refusing a file of more than limit bytes
// (ErrTooLarge) and anything that is not a regular file (ErrNotRegular), before reading a byte.
func Read(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, st, limit); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should the path turn into a FIFO between the Stat and here, the open does not
	// wait for a writer (the Stat of the open file then refuses it).
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := check(path, st, limit); err != nil {
		return nil, err
	}
	// a file growing while it is read still stops at the cap
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, fmt.Sprintf("more than %d bytes", limit), limit)
	}
	return data, nil
}

func check(path string, st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %s", ErrNotRegular, kind(st.Mode()))}
	}
	if st.Size() > limit {
		return tooLarge(path, fmt.Sprintf("%d bytes", st.Size()), limit)
	}
	return nil
}

func tooLarge(path, what string, limit int64) error {
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %s, the most accepted is %d", ErrTooLarge, what, limit)}
}

// kind names a non-regular file mode for the error.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
