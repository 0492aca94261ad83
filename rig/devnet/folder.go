package devnet

import (
	"errors"
	"os"
	"path/filepath"
)

// The devnet's folder: what it made there, and what Close may remove.

// Close stops the runners, the simulator and the chain, and removes a temporary folder.
func (d *Devnet) Close() error {
	if d.cancel != nil {
		d.cancel()
	}
	d.wg.Wait()
	var errs []error
	for _, j := range d.journals {
		if j != nil {
			errs = append(errs, j.Close())
		}
	}
	if d.simSrv != nil {
		d.Sim.Close() // releases requests held by injected latency
		errs = append(errs, d.simSrv.Close())
	}
	if d.client != nil {
		d.client.Close()
	}
	if d.Chain != nil {
		errs = append(errs, d.Chain.Close())
	}
	if d.tmpDir {
		// Never delete what the devnet did not make: a newcomer's own rig journal, pointed into
		// the folder the devnet printed, stays (issue 37).
		if foreign, err := d.Foreign(); err != nil {
			errs = append(errs, err)
		} else if len(foreign) == 0 {
			errs = append(errs, os.RemoveAll(d.Dir))
		}
	}
	return errors.Join(errs...)
}

// Foreign lists what the devnet's folder holds that the devnet did not make, by name: anything
// but its rigs' journals and ledgers with SQLite's files beside them.
func (d *Devnet) Foreign() ([]string, error) {
	entries, err := os.ReadDir(d.Dir)
	if err != nil {
		return nil, err
	}
	ours := map[string]bool{}
	for _, name := range d.made(false) {
		ours[name] = true
	}
	var foreign []string
	for _, e := range entries {
		if !ours[e.Name()] {
			foreign = append(foreign, e.Name())
		}
	}
	return foreign, nil
}

// made names the files the devnet makes in its folder (each rig process's journal and ledger,
// with SQLite's -wal, -shm and -journal files); onlyPresent keeps those that exist.
func (d *Devnet) made(onlyPresent bool) []string {
	var names []string
	for i := range d.opts.Layout {
		for _, path := range []string{d.JournalPath(i), d.LedgerPath(i)} {
			for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
				if onlyPresent {
					if _, err := os.Stat(path + suffix); err != nil {
						continue
					}
				}
				names = append(names, filepath.Base(path+suffix))
			}
		}
	}
	return names
}
