#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import EvalBench

@Suite("When received bytes arrived")
struct ReceiveStampTests {
    @Test("a wall-clock stamp moves onto the uptime clock by its age; one from the future or over a second old is not used")
    func conversion() {
        let wall = timespec(tv_sec: 1_000, tv_nsec: 500_000_000)
        #expect(ReceiveStamp.uptime(ofWallClock: timespec(tv_sec: 1_000, tv_nsec: 200_000_000), uptimeNow: 5_000_000_000, wallNow: wall)
            == 4_700_000_000)
        #expect(ReceiveStamp.uptime(ofWallClock: timespec(tv_sec: 999, tv_nsec: 900_000_000), uptimeNow: 5_000_000_000, wallNow: wall)
            == 4_400_000_000)
        // From the future, over a second old, absurd, or older than the uptime clock itself.
        for stamp in [timespec(tv_sec: 1_000, tv_nsec: 600_000_000), timespec(tv_sec: 999, tv_nsec: 400_000_000),
                      timespec(tv_sec: .min, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: .max)] {
            #expect(ReceiveStamp.uptime(ofWallClock: stamp, uptimeNow: 5_000_000_000, wallNow: wall) == 5_000_000_000)
        }
        #expect(ReceiveStamp.uptime(ofWallClock: timespec(tv_sec: 1_000, tv_nsec: 0), uptimeNow: 1_000, wallNow: wall) == 1_000)
    }

    #if os(Linux)
    @Test("bytes read 10 ms after they arrived carry the time they arrived, not the time they were read")
    func kernelStamp() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        try #require(bound && listen(listener, 1) == 0)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let connected = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
        }
        try #require(connected)
        let server = accept(listener, nil, nil)
        try #require(server >= 0)
        defer { close(server) }
        ReceiveStamp.enable(server)

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer { buffer.deallocate() }
        // The kernel turns stamping on a little after the first socket asks (deferred work), so
        // the first packets may come without a stamp (and are then stamped when read): try
        // until one comes stamped, for up to about a second.
        var stamped = false
        for _ in 0..<100 where !stamped {
            let beforeSend = DispatchTime.now().uptimeNanoseconds
            // On loopback the receiving side takes the packet (and stamps it) within the send call.
            #expect(send(client, "hello", 5, 0) == 5)
            let afterSend = DispatchTime.now().uptimeNanoseconds
            usleep(10_000)
            let (count, arrivedAt) = ReceiveStamp.receive(server, into: buffer)
            #expect(count == 5)
            // Read at least 10 ms later: a stamp taken at the read would be past afterSend + 10 ms.
            stamped = arrivedAt >= beforeSend - 1_000_000 && arrivedAt <= afterSend + 1_000_000
        }
        #expect(stamped)
    }
    #endif
}
