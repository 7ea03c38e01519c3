"""The servos' side of the two wire protocols, for the simulated bus (no rclpy, no I/O).

Dynamixel Protocol 2.0 (ROBOTIS e-manual, 'Protocol 2.0'): instruction packets
`FF FF FD 00 ID LEN_L LEN_H INST PARAM... CRC_L CRC_H`, LEN counting INST, the parameters
and the CRC; the CRC is CRC-16 (polynomial 0x8005, initial value 0, not reflected) over
everything before it; `FF FF FD` inside the packet is sent stuffed as `FF FF FD FD`. Status
packets carry instruction 0x55 and an error byte before their parameters.

Feetech SCS/STS (Feetech 'communication protocol' manual, Dynamixel 1.0 style): packets
`FF FF ID LEN INST PARAM... CHK`, LEN = parameters + 2, CHK the inverted low byte of the sum
of ID, LEN, INST and the parameters; status packets carry the error byte in place of INST.
"""

from __future__ import annotations

from dataclasses import dataclass

BROADCAST = 0xFE
PING, READ, WRITE, REG_WRITE, ACTION, REBOOT = 0x01, 0x02, 0x03, 0x04, 0x05, 0x08
STATUS = 0x55
SYNC_READ, SYNC_WRITE, FAST_SYNC_READ = 0x82, 0x83, 0x8A

# Protocol 2.0 status error numbers (e-manual 'Status Packet'); 0x80 is the Alert bit
ERR_RESULT_FAIL, ERR_INSTRUCTION, ERR_CRC, ERR_DATA_RANGE = 1, 2, 3, 4
ERR_DATA_LENGTH, ERR_DATA_LIMIT, ERR_ACCESS, ALERT = 5, 6, 7, 0x80


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8005) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data: bytes | bytearray, crc: int = 0) -> int:
    """Protocol 2.0's CRC-16 of `data`, continued from `crc`."""
    for byte in data:
        crc = ((crc << 8) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]) & 0xFFFF
    return crc


def stuff(body: bytes) -> bytes:
    """Insert FD after every FF FF FD of the instruction/parameter part."""
    out = bytearray()
    for byte in body:
        out.append(byte)
        if byte == 0xFD and len(out) >= 3 and out[-3:-1] == b'\xff\xff':
            out.append(0xFD)
    return bytes(out)


def unstuff(body: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(body):
        out.append(body[i])
        if body[i] == 0xFD and len(out) >= 3 and out[-3:-1] == b'\xff\xff':
            i += 1  # skip the stuffing FD
        i += 1
    return bytes(out)


@dataclass(frozen=True)
class Instruction:
    """One instruction packet as received: servo id, instruction and its parameters."""

    servo_id: int
    instruction: int
    params: bytes
    wire_length: int  # bytes on the wire, for the timing of what follows


def dxl_packet(servo_id: int, instruction: int, params: bytes, *, stuffed: bool = True) -> bytes:
    """A complete Protocol 2.0 packet (stuffed, with its CRC)."""
    body = bytes([instruction]) + params
    if stuffed:
        body = stuff(body)
    length = len(body) + 2
    head = bytes([0xFF, 0xFF, 0xFD, 0x00, servo_id, length & 0xFF, length >> 8])
    packet = head + body
    crc = crc16(packet)
    return packet + bytes([crc & 0xFF, crc >> 8])


def dxl_status(servo_id: int, error: int, params: bytes = b'') -> bytes:
    return dxl_packet(servo_id, STATUS, bytes([error]) + params)


class DxlParser:
    """Splits a byte stream into Protocol 2.0 instruction packets; counts what it drops."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.dropped = 0  # packets with a bad CRC, bytes skipped before a header

    def feed(self, data: bytes) -> list[Instruction]:
        self._buffer += data
        out = []
        buf = self._buffer
        while True:
            start = buf.find(b'\xff\xff\xfd\x00')
            if start < 0:
                if len(buf) > 3:  # no header: keep what may be the start of one
                    self.dropped += 1
                    del buf[:-3]
                break
            if start:
                self.dropped += 1
                del buf[:start]
            if len(buf) < 7:
                break
            length = buf[5] | buf[6] << 8
            total = 7 + length
            if length < 3 or length > 1024:
                self.dropped += 1
                del buf[:1]
                continue
            if len(buf) < total:
                break
            packet = bytes(buf[:total])
            del buf[:total]
            if crc16(packet[:-2]) != (packet[-2] | packet[-1] << 8):
                self.dropped += 1
                continue
            body = unstuff(packet[7:-2])
            out.append(Instruction(packet[4], body[0], body[1:], total))
        return out


def scs_packet(servo_id: int, code: int, params: bytes) -> bytes:
    """A complete Feetech packet: `code` is the instruction, or the error of a status packet."""
    length = len(params) + 2
    body = bytes([servo_id, length, code]) + params
    return b'\xff\xff' + body + bytes([~sum(body) & 0xFF])


class ScsParser:
    """Splits a byte stream into Feetech instruction packets; counts what it drops."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> list[Instruction]:
        self._buffer += data
        out = []
        buf = self._buffer
        while True:
            start = buf.find(b'\xff\xff')
            if start < 0:
                if len(buf) > 1:
                    self.dropped += 1
                    del buf[:-1]
                break
            if start:
                self.dropped += 1
                del buf[:start]
            while len(buf) > 2 and buf[2] == 0xFF:  # FF FF FF ...: the header starts later
                del buf[:1]
            if len(buf) < 4:
                break
            length = buf[3]
            total = 4 + length
            if length < 2:
                self.dropped += 1
                del buf[:2]
                continue
            if len(buf) < total:
                break
            packet = bytes(buf[:total])
            del buf[:total]
            if ~sum(packet[2:-1]) & 0xFF != packet[-1]:
                self.dropped += 1
                continue
            out.append(Instruction(packet[2], packet[4], packet[5:-1], total))
        return out
