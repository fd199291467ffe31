// Package dosdevice tells which file names Windows opens as DOS devices
// (NUL, CON, COM1, ...) rather than as files: winexec refuses them as
// programs and hdc as local paths, by this one rule.
package dosdevice
