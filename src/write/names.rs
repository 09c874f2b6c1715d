//! The names of the files vercy keeps beside a store it replaces: its lock file
//! (`.STORE.vercy-lock`) and the temporary files of a write (`.STORE.XXXXXX.vercy-tmp`).
//!
//! Both stay within NAME_MAX (255 bytes) for any store name a folder can hold: a name too long
//! to carry whole is cut and ends with a hash of the whole name, so two long names that share
//! their first bytes still get names of their own. A temporary file's name says exactly which
//! store it belongs to: the random part has a fixed length and alphabet, so a stale temporary
//! file of `a` is never mistaken for one of `a.b` (whose lock is another file).

use std::ffi::{OsStr, OsString};

/// How every temporary file's name ends.
pub const TEMP_SUFFIX: &str = ".vercy-tmp";
/// How the lock file's name ends.
pub const LOCK_SUFFIX: &str = ".vercy-lock";
/// Random alphanumeric characters in a temporary file's name.
pub const RANDOM_LEN: usize = 6;

/// The longest file name Linux, the BSDs and macOS accept.
const NAME_MAX: usize = 255;
/// The longest stem: `.` STEM `.` RANDOM `.vercy-tmp` fits NAME_MAX (the lock's name is shorter).
const STEM_MAX: usize = NAME_MAX - 2 - RANDOM_LEN - TEMP_SUFFIX.len();
const HASH_HEX: usize = 16;

/// What the names of the files beside the store `name` start from: the name itself, or, when
/// it is too long, its first bytes, `~` and a hash of the whole name.
pub fn stem(name: &OsStr) -> OsString {
    let bytes = bytes_of(name);
    if bytes.len() <= STEM_MAX {
        return name.to_os_string();
    }
    let mut cut = bytes[..STEM_MAX - 1 - HASH_HEX].to_vec();
    cut.push(b'~');
    cut.extend_from_slice(format!("{:016x}", fnv1a(&bytes)).as_bytes());
    from_bytes(cut)
}

/// `.STEM.`: what a temporary file's name starts with.
pub fn temp_prefix(name: &OsStr) -> OsString {
    let mut prefix = OsString::from(".");
    prefix.push(stem(name));
    prefix.push(".");
    prefix
}

/// `.STEM.vercy-lock`
pub fn lock_name(name: &OsStr) -> OsString {
    let mut lock = OsString::from(".");
    lock.push(stem(name));
    lock.push(LOCK_SUFFIX);
    lock
}

/// Is `entry` (a file name in the store's folder) a temporary file of the store `name`?
pub fn is_temp_of(entry: &OsStr, name: &OsStr) -> bool {
    let entry = bytes_of(entry);
    let prefix = temp_prefix(name);
    let prefix = bytes_of(&prefix);
    let Some(rest) = entry.strip_prefix(&prefix[..]) else {
        return false;
    };
    let Some(random) = rest.strip_suffix(TEMP_SUFFIX.as_bytes()) else {
        return false;
    };
    random.len() == RANDOM_LEN && random.iter().all(u8::is_ascii_alphanumeric)
}

/// FNV-1a, 64 bits: written out because the name it makes must be the same in every build
/// (the standard library's hasher may change between releases, and a store's lock file must not).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(unix)]
fn bytes_of(name: &OsStr) -> Vec<u8> {
    std::os::unix::ffi::OsStrExt::as_bytes(name).to_vec()
}

#[cfg(unix)]
fn from_bytes(bytes: Vec<u8>) -> OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes)
}

#[cfg(not(unix))]
fn bytes_of(name: &OsStr) -> Vec<u8> {
    name.to_string_lossy().into_owned().into_bytes()
}

#[cfg(not(unix))]
fn from_bytes(bytes: Vec<u8>) -> OsString {
    OsString::from(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_kept_whole() {
        assert_eq!(stem(OsStr::new("store.jsonl")), "store.jsonl");
        assert_eq!(lock_name(OsStr::new("s")), ".s.vercy-lock");
        assert_eq!(temp_prefix(OsStr::new("s")), ".s.");
    }

    #[test]
    fn every_name_fits_name_max_and_long_names_stay_apart() {
        for len in [STEM_MAX, STEM_MAX + 1, 240, 254, 255] {
            let name = "é".repeat(len / 2) + &"x".repeat(len % 2);
            let name = OsStr::new(&name);
            let temp = temp_prefix(name).len() + RANDOM_LEN + TEMP_SUFFIX.len();
            assert!(temp <= NAME_MAX, "{len}: {temp}");
            assert!(lock_name(name).len() <= NAME_MAX);
        }
        let a = "a".repeat(250);
        let b = "a".repeat(249) + "b";
        assert_ne!(stem(OsStr::new(&a)), stem(OsStr::new(&b)));
    }

    #[test]
    fn a_temp_file_belongs_to_one_store() {
        let s = OsStr::new("s");
        assert!(is_temp_of(OsStr::new(".s.Ab12Z9.vercy-tmp"), s));
        assert!(!is_temp_of(OsStr::new(".s.b.Ab12Z9.vercy-tmp"), s));
        assert!(!is_temp_of(
            OsStr::new(".s.b.Ab12Z9.vercy-tmp"),
            OsStr::new("s.b.Ab12Z9")
        ));
        assert!(is_temp_of(
            OsStr::new(".s.b.Ab12Z9.vercy-tmp"),
            OsStr::new("s.b")
        ));
        assert!(!is_temp_of(OsStr::new(".s.Ab1-Z9.vercy-tmp"), s));
        assert!(!is_temp_of(OsStr::new(".s.vercy-lock"), s));
        assert!(!is_temp_of(OsStr::new("s"), s));
    }
}
