package task

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/files"
)

func TestLoadKeystore(t *testing.T) {
	dir := t.TempDir()
	ks := keystore.NewKeyStore(dir, keystore.LightScryptN, keystore.LightScryptP)
	a1, err := ks.NewAccount("pw")
	if err != nil {
		t.Fatal(err)
	}
	a2, err := ks.NewAccount("pw")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := LoadKeystore(dir, "pw")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, k := range keys {
		got[k.Address.Hex()] = true
		if crypto.PubkeyToAddress(k.Private.PublicKey) != k.Address {
			t.Errorf("key of %s does not match its address", k.Address)
		}
	}
	if len(keys) != 2 || !got[a1.Address.Hex()] || !got[a2.Address.Hex()] {
		t.Fatalf("loaded %v", keys)
	}
	if _, err := LoadKeystore(dir, "wrong"); err == nil {
		t.Fatal("wrong password accepted")
	}
	if _, err := LoadKeystore(t.TempDir(), "pw"); err == nil {
		t.Fatal("empty keystore accepted")
	}
}

func TestKeyFromEnvNeverShowsTheKey(t *testing.T) {
	priv, _ := crypto.GenerateKey()
	secret := hex.EncodeToString(crypto.FromECDSA(priv))
	env := map[string]string{"GOOD": "0x" + secret, "BAD": secret[:10] + "zz"}
	k, err := KeyFromEnv("GOOD", func(n string) string { return env[n] })
	if err != nil || k.Address != crypto.PubkeyToAddress(priv.PublicKey) {
		t.Fatalf("%v %v", k, err)
	}
	if strings.Contains(k.String(), secret) {
		t.Fatal("Key.String shows the secret")
	}
	_, err = KeyFromEnv("BAD", func(n string) string { return env[n] })
	if err == nil || strings.Contains(err.Error(), secret[:10]) {
		t.Fatalf("bad key error %v", err)
	}
	if _, err := KeyFromEnv("MISSING", func(string) string { return "" }); err == nil {
		t.Fatal("missing variable accepted")
	}
}

func TestReadPassword(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(f, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadPassword(f, "", nil); err != nil || p != "hunter2" {
		t.Fatalf("%q %v", p, err)
	}
	if p, err := ReadPassword("", "PW", func(string) string { return "x" }); err != nil || p != "x" {
		t.Fatalf("%q %v", p, err)
	}
	if _, err := ReadPassword("", "PW", func(string) string { return "" }); err == nil {
		t.Fatal("unset password variable accepted")
	}
}

// The password file and the keystore's files are read with a cap, and a FIFO or a device is
// refused rather than read (a FIFO would block the rig where no signal reaches it).
func TestKeyFilesAreBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pw.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{fifo, "/dev/zero", dir} {
		if _, err := ReadPassword(file, "", os.Getenv); !errors.Is(err, files.ErrNotRegular) {
			t.Errorf("password file %s: %v", file, err)
		}
	}
	big := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(big, make([]byte, files.MaxPassword+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPassword(big, "", os.Getenv); !errors.Is(err, files.ErrTooLarge) {
		t.Errorf("a password file over the cap: %v", err)
	}
	// a keystore holding a FIFO is refused by its name
	if _, err := LoadKeystore(dir, "pw"); !errors.Is(err, files.ErrNotRegular) || !strings.Contains(err.Error(), "pw.fifo") {
		t.Errorf("a keystore with a FIFO: %v", err)
	}
}
