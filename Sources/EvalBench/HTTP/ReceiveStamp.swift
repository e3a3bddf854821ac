#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// When received bytes arrived: on Linux the kernel stamps each incoming packet
/// (`SO_TIMESTAMPNS`), and a read returns the stamp of the last packet it took; so a first
/// token's time is when its bytes reached this machine, not when a busy machine next ran the
/// thread that reads them. Elsewhere, or when no stamp came, it is when `recv` returned.
///
/// The kernel's stamps are wall-clock time; they are moved onto the monotonic clock
/// (`DispatchTime.uptimeNanoseconds`, the Stopwatch's) by the wall-clock age of the stamp,
/// read beside both clocks. A stamp from the future, or older than a second (the wall clock
/// was set in between), is not used.
package enum ReceiveStamp {
    #if os(Linux)
    /// `SO_TIMESTAMPNS` (and `SCM_TIMESTAMPNS`) on Linux with a 64-bit `time_t`.
    static let option: Int32 = 35
    #endif

    /// Asks the kernel to stamp what arrives on `fd`; harmless where it cannot.
    package static func enable(_ fd: Int32) {
        #if os(Linux)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, option, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Receives into `buffer` like `recv`: the count (or -1 with `errno`), and when the bytes
    /// arrived in `DispatchTime.uptimeNanoseconds`.
    package static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, arrivedAt: UInt64) {
        #if os(Linux)
        var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        // cmsghdr (16 bytes) and a timespec (16): room for that and more.
        var control = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let (count, stamp): (Int, timespec?) = withUnsafeMutablePointer(to: &vector) { vectorPointer in
            withUnsafeMutableBytes(of: &control) { controlBytes in
                var message = msghdr()
                message.msg_iov = vectorPointer
                message.msg_iovlen = 1
                message.msg_control = controlBytes.baseAddress
                message.msg_controllen = controlBytes.count
                let count = recvmsg(fd, &message, 0)
                guard count > 0 else { return (count, nil) }
                return (count, timestamp(in: UnsafeRawBufferPointer(rebasing: controlBytes[0..<min(Int(message.msg_controllen), controlBytes.count)])))
            }
        }
        // `errno` from recvmsg stays for the caller, whatever reading the clocks does to it.
        let error = errno
        defer { errno = error }
        let now = DispatchTime.now().uptimeNanoseconds
        guard let stamp else { return (count, now) }
        return (count, uptime(ofWallClock: stamp, uptimeNow: now, wallNow: wallClockNow()))
        #else
        let count = recv(fd, buffer.baseAddress, buffer.count, 0)
        let error = errno
        let now = DispatchTime.now().uptimeNanoseconds
        errno = error
        return (count, now)
        #endif
    }

    #if os(Linux)
    /// The `SCM_TIMESTAMPNS` stamp among the control messages `bytes` holds, if any.
    static func timestamp(in bytes: UnsafeRawBufferPointer) -> timespec? {
        let header = MemoryLayout<cmsghdr>.size
        let align = MemoryLayout<Int>.size
        var offset = 0
        while offset + header <= bytes.count {
            let length = bytes.loadUnaligned(fromByteOffset: offset, as: Int.self)
            let level = bytes.loadUnaligned(fromByteOffset: offset + 8, as: Int32.self)
            let type = bytes.loadUnaligned(fromByteOffset: offset + 12, as: Int32.self)
            guard length >= header, offset + length <= bytes.count else { return nil }
            if level == SOL_SOCKET, type == option, length >= header + MemoryLayout<timespec>.size {
                return bytes.loadUnaligned(fromByteOffset: offset + header, as: timespec.self)
            }
            offset += (length + align - 1) / align * align
        }
        return nil
    }

    static func wallClockNow() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }
    #endif

    /// `stamp` (wall clock) on the uptime clock, given both clocks read at the same moment;
    /// `uptimeNow` when the stamp is in the future or more than a second old.
    static func uptime(ofWallClock stamp: timespec, uptimeNow: UInt64, wallNow: timespec) -> UInt64 {
        let (seconds, overflow) = Int64(wallNow.tv_sec).subtractingReportingOverflow(Int64(stamp.tv_sec))
        guard !overflow, seconds >= -1, seconds <= 1, abs(Int64(stamp.tv_nsec)) < 2_000_000_000 else { return uptimeNow }
        let age = seconds * 1_000_000_000 + (Int64(wallNow.tv_nsec) - Int64(stamp.tv_nsec))
        guard age >= 0, age < 1_000_000_000, UInt64(age) <= uptimeNow else { return uptimeNow }
        return uptimeNow - UInt64(age)
    }
}
