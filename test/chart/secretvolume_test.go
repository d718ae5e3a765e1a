package chart

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// projectSecret writes a Secret's data into dir the way the kubelet's
// atomic writer updates a mounted Secret volume: the files go into a new
// timestamped directory, the ..data symlink is swapped to it with one
// rename, and each key is a symlink through ..data. A reader never sees a
// certificate from one version and a key from another, and the old files
// disappear only after the swap, as they do under the webhook in a pod.
func projectSecret(dir string, data map[string][]byte) error {
	payload, err := os.MkdirTemp(dir, time.Now().UTC().Format("..2006_01_02_15_04_05."))
	if err != nil {
		return err
	}
	for key, value := range data {
		if err := os.WriteFile(filepath.Join(payload, key), value, 0o644); err != nil {
			return err
		}
	}
	dataLink := filepath.Join(dir, "..data")
	old, err := os.Readlink(dataLink)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	tmpLink := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(filepath.Base(payload), tmpLink); err != nil {
		return err
	}
	if err := os.Rename(tmpLink, dataLink); err != nil {
		return fmt.Errorf("swapping ..data: %w", err)
	}
	for key := range data {
		link := filepath.Join(dir, key)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", key), link); err != nil {
				return err
			}
		}
	}
	if old != "" {
		return os.RemoveAll(filepath.Join(dir, old))
	}
	return nil
}
