package task

import (
	"crypto/ecdsa"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/files"
)

// Key is a loaded private key with its address. Its String never shows the secret.
type Key struct {
	Address common.Address
	Private *ecdsa.PrivateKey
	From    string // where it came from: a keystore file name or an environment variable name
}

func (k Key) String() string { return k.Address.Hex() + " (" + k.From + ")" }

// SendsFrom is the key's address: a Key is the account a txm.Sender sends with.
func (k Key) SendsFrom() common.Address { return k.Address }

// SigningKey is the private key that signs the account's transactions.
func (k Key) SigningKey() *ecdsa.PrivateKey { return k.Private }

// ReadPassword returns the keystore password from a file (trailing newline dropped) or, when no
// file is given, from the environment variable env.
func ReadPassword(file, env string, getenv func(string) string) (string, error) {
	if file != "" {
		b, err := files.Read(file, files.MaxPassword)
		if err != nil {
			return "", fmt.Errorf("password file: %w", err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	if env != "" {
		if v := getenv(env); v != "" {
			return v, nil
		}
		return "", fmt.Errorf("password variable %s is not set", env)
	}
	return "", nil
}

// LoadKeystore decrypts every key file in a go-ethereum keystore directory with one password,
// sorted by file name so the rig order is stable.
func LoadKeystore(dir, password string) ([]Key, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("keystore: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var keys []Key
	for _, name := range names {
		blob, err := files.Read(filepath.Join(dir, name), files.MaxKey)
		if err != nil {
			return nil, fmt.Errorf("keystore %s: %w", name, err)
		}
		k, err := keystore.DecryptKey(blob, password)
		if err != nil {
			// The error of DecryptKey never contains the password or the key.
			return nil, fmt.Errorf("keystore %s: %w", name, err)
		}
		keys = append(keys, Key{Address: k.Address, Private: k.PrivateKey, From: name})
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("keystore %s holds no key files", dir)
	}
	return keys, nil
}

// KeyFromEnv reads a hex private key (with or without 0x) from an environment variable, for
// development. The error names the variable, never its value.
func KeyFromEnv(name string, getenv func(string) string) (Key, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return Key{}, fmt.Errorf("key variable %s is not set", name)
	}
	priv, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X"))
	if err != nil {
		return Key{}, fmt.Errorf("key variable %s does not hold a 32-byte hex private key", name)
	}
	return Key{Address: crypto.PubkeyToAddress(priv.PublicKey), Private: priv, From: "$" + name}, nil
}
