package peexports

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// WinDbgExtension are the exports the WinDbg extension
// (examples/windbg/ext) must have: the lifecycle functions the debugger
// calls at .load and .unload, and the !mcp and !help commands.
var WinDbgExtension = []string{
	"DebugExtensionInitialize",
	"DebugExtensionUninitialize",
	"DebugExtensionCanUnload",
	"mcp",
	"help",
}

// maxNames bounds the names read from one image; a real DLL has far fewer,
// and a corrupt count must not make the reader allocate without limit.
const maxNames = 1 << 16

// ErrNoExports is returned for an image without an export directory.
var ErrNoExports = errors.New("the image has no export directory")

// Names returns the exported names of the PE image at path, sorted.
func Names(path string) ([]string, error) {
	f, err := pe.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := exportNames(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return names, nil
}

// exportNames reads the export name table of f.
func exportNames(f *pe.File) ([]string, error) {
	var dir pe.DataDirectory
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		if oh.NumberOfRvaAndSizes > pe.IMAGE_DIRECTORY_ENTRY_EXPORT {
			dir = oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT]
		}
	case *pe.OptionalHeader32:
		if oh.NumberOfRvaAndSizes > pe.IMAGE_DIRECTORY_ENTRY_EXPORT {
			dir = oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT]
		}
	default:
		return nil, errors.New("not a PE image with an optional header")
	}
	if dir.VirtualAddress == 0 || dir.Size < 40 {
		return nil, ErrNoExports
	}
	img := image{f: f, data: map[*pe.Section][]byte{}}
	hdr, err := img.read(dir.VirtualAddress, 40)
	if err != nil {
		return nil, fmt.Errorf("export directory: %w", err)
	}
	n := binary.LittleEndian.Uint32(hdr[24:])
	namesRVA := binary.LittleEndian.Uint32(hdr[32:])
	if n > maxNames {
		return nil, fmt.Errorf("%d exported names, more than %d", n, maxNames)
	}
	ptrs, err := img.read(namesRVA, n*4)
	if err != nil {
		return nil, fmt.Errorf("export name table: %w", err)
	}
	names := make([]string, 0, n)
	for i := range n {
		s, err := img.cstring(binary.LittleEndian.Uint32(ptrs[i*4:]))
		if err != nil {
			return nil, fmt.Errorf("export name %d: %w", i, err)
		}
		names = append(names, s)
	}
	slices.Sort(names)
	return names, nil
}

// Check returns an error naming every name of want that the image at
// path does not export (names are case-sensitive, as GetProcAddress's).
func Check(path string, want []string) error {
	have, err := Names(path)
	if err != nil {
		return err
	}
	var missing []string
	for _, w := range want {
		if _, ok := slices.BinarySearch(have, w); !ok {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s does not export %q (it exports %q)", path, missing, have)
	}
	return nil
}

// image reads bytes at relative virtual addresses, reading each section
// once.
type image struct {
	f    *pe.File
	data map[*pe.Section][]byte
}

func (im image) section(rva uint32) (*pe.Section, []byte, error) {
	for _, s := range im.f.Sections {
		size := max(s.VirtualSize, s.Size)
		if rva >= s.VirtualAddress && rva-s.VirtualAddress < size {
			if data, ok := im.data[s]; ok {
				return s, data, nil
			}
			data, err := s.Data()
			if err != nil {
				return nil, nil, err
			}
			im.data[s] = data
			return s, data, nil
		}
	}
	return nil, nil, fmt.Errorf("address 0x%x is in no section", rva)
}

func (im image) read(rva, n uint32) ([]byte, error) {
	s, data, err := im.section(rva)
	if err != nil {
		return nil, err
	}
	off := uint64(rva - s.VirtualAddress)
	if off+uint64(n) > uint64(len(data)) {
		return nil, fmt.Errorf("%d bytes at 0x%x run past the section's data", n, rva)
	}
	return data[off : off+uint64(n)], nil
}

// maxName bounds one exported name.
const maxName = 4096

func (im image) cstring(rva uint32) (string, error) {
	s, data, err := im.section(rva)
	if err != nil {
		return "", err
	}
	rest := data[rva-s.VirtualAddress:]
	if len(rest) > maxName {
		rest = rest[:maxName]
	}
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return "", fmt.Errorf("name at 0x%x is not terminated within %d bytes", rva, maxName)
	}
	return string(rest[:i]), nil
}
