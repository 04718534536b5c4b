import CCurl
import Foundation

extension HTTPLoader {
    /// The transfer's callbacks, each handed `context` (the `Transfer`): the body and the header lines, the progress
    /// (which also cancels), and with `--deny-private-networks` the socket opener that refuses a private address.
    func installCallbacks(context: UnsafeMutableRawPointer) {
        _ = imgf_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = imgf_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let total = size * count
            guard let data, total > 0 else { return total }
            return transfer.receive(data, count: total) ? total : 0
        }
        _ = imgf_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        _ = imgf_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let total = size * count
            if let data {
                let line = String(decoding: UnsafeRawBufferPointer(start: data, count: total), as: UTF8.self)
                transfer.receiveHeader(line)
            }
            return total
        }
        _ = imgf_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = imgf_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        _ = imgf_setopt_xferinfo(handle) { user, total, now, _, _ in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            if transfer.cancellation?.isCancelled == true { return 1 }
            if let progress = transfer.progress, now != transfer.lastProgress {
                transfer.lastProgress = Int64(now)
                progress(Int64(now), total > 0 ? Int64(total) : nil)
            }
            return 0
        }
        if options.denyPrivateNetworks {
            _ = imgf_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context)
            _ = imgf_setopt_opensocket(handle) { user, _, address in
                let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
                guard let address else { return CURL_SOCKET_BAD }
                let socketAddress = withUnsafeMutablePointer(to: &address.pointee.addr) { UnsafePointer($0) }
                if let verdict = AddressPolicy.classify(socketAddress), verdict.isPrivate {
                    transfer.blockedAddress = verdict.text
                    return CURL_SOCKET_BAD
                }
                return imgf_open_socket(address)
            }
        }
    }
}
