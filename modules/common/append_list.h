// A list that grows at the back only and is cleared as a whole, for the
// queues a decoupled PE's calendar refills on every token (docs/speed.md,
// "Fifth pass").
//
// Why not std::vector: its emplace_back() is not inlined where the calendar
// appends (GCC inlines the growth path into it, which makes it too large), so
// every append was a call; and push_back() of a braced record takes it by
// reference, so the record is built on the stack with 8-byte stores and
// copied with a 16-byte load, which the store buffer cannot forward. Here
// append() is inline and returns the slot, which the caller fills member by
// member. Growth (rare: the list keeps its slots) is out of line.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace npuvp {

template <class T>
class AppendList {
public:
    // A slot at the back, to be filled by the caller (it holds whatever
    // was there before: every member must be written).
    T& append() {
        if (m_size == m_slots.size()) grow();
        return m_slots[m_size++];
    }
    void clear() { m_size = 0; }
    void pop_back() { --m_size; }
    // Drops the first `n` entries, keeping the order of the rest.
    void erase_front(std::size_t n) {
        std::move(begin() + n, end(), begin());
        m_size -= n;
    }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    // Appends possible without growing.
    std::size_t capacity() const { return m_slots.size(); }
    T& operator[](std::size_t i) { return m_slots[i]; }
    const T& operator[](std::size_t i) const { return m_slots[i]; }
    T& front() { return m_slots[0]; }
    T& back() { return m_slots[m_size - 1]; }
    T* begin() { return m_slots.data(); }
    T* end() { return m_slots.data() + m_size; }

private:
    [[gnu::noinline]] void grow() { m_slots.resize(m_slots.empty() ? 16 : 2 * m_slots.size()); }

    std::vector<T> m_slots;  // all constructed; the first m_size are the list
    std::size_t m_size = 0;
};

}  // namespace npuvp
