#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls `step` with the bytes done so far (a `write`, `pwrite` or `pread` of the rest) until
/// `total` are done, going on after short and interrupted calls. Nil when all were done, else
/// the error code of the call that failed (`EIO` for one that did nothing).
func transferAll(_ total: Int, _ step: (Int) -> Int) -> Int32? {
    var done = 0
    while done < total {
        let count = step(done)
        if count > 0 {
            done += count
        } else if count < 0, errno == EINTR {
            continue
        } else {
            return count < 0 ? errno : EIO
        }
    }
    return nil
}
