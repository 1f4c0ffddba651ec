from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Message(_message.Message):
    __slots__ = ("message_type", "correlation_id", "content")
    class MessageType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DEFAULT: _ClassVar[Message.MessageType]
        TP_REGISTER_REQUEST: _ClassVar[Message.MessageType]
        TP_REGISTER_RESPONSE: _ClassVar[Message.MessageType]
        TP_UNREGISTER_REQUEST: _ClassVar[Message.MessageType]
        TP_UNREGISTER_RESPONSE: _ClassVar[Message.MessageType]
        TP_PROCESS_REQUEST: _ClassVar[Message.MessageType]
        TP_PROCESS_RESPONSE: _ClassVar[Message.MessageType]
        TP_STATE_GET_REQUEST: _ClassVar[Message.MessageType]
        TP_STATE_GET_RESPONSE: _ClassVar[Message.MessageType]
        TP_STATE_SET_REQUEST: _ClassVar[Message.MessageType]
        TP_STATE_SET_RESPONSE: _ClassVar[Message.MessageType]
        TP_STATE_DELETE_REQUEST: _ClassVar[Message.MessageType]
        TP_STATE_DELETE_RESPONSE: _ClassVar[Message.MessageType]
        TP_RECEIPT_ADD_DATA_REQUEST: _ClassVar[Message.MessageType]
        TP_RECEIPT_ADD_DATA_RESPONSE: _ClassVar[Message.MessageType]
        TP_EVENT_ADD_REQUEST: _ClassVar[Message.MessageType]
        TP_EVENT_ADD_RESPONSE: _ClassVar[Message.MessageType]
        CLIENT_EVENTS_SUBSCRIBE_REQUEST: _ClassVar[Message.MessageType]
        CLIENT_EVENTS_SUBSCRIBE_RESPONSE: _ClassVar[Message.MessageType]
        CLIENT_EVENTS_UNSUBSCRIBE_REQUEST: _ClassVar[Message.MessageType]
        CLIENT_EVENTS_UNSUBSCRIBE_RESPONSE: _ClassVar[Message.MessageType]
        CLIENT_EVENTS: _ClassVar[Message.MessageType]
        CLIENT_EVENTS_GET_REQUEST: _ClassVar[Message.MessageType]
        CLIENT_EVENTS_GET_RESPONSE: _ClassVar[Message.MessageType]
        PING_REQUEST: _ClassVar[Message.MessageType]
        PING_RESPONSE: _ClassVar[Message.MessageType]
    DEFAULT: Message.MessageType
    TP_REGISTER_REQUEST: Message.MessageType
    TP_REGISTER_RESPONSE: Message.MessageType
    TP_UNREGISTER_REQUEST: Message.MessageType
    TP_UNREGISTER_RESPONSE: Message.MessageType
    TP_PROCESS_REQUEST: Message.MessageType
    TP_PROCESS_RESPONSE: Message.MessageType
    TP_STATE_GET_REQUEST: Message.MessageType
    TP_STATE_GET_RESPONSE: Message.MessageType
    TP_STATE_SET_REQUEST: Message.MessageType
    TP_STATE_SET_RESPONSE: Message.MessageType
    TP_STATE_DELETE_REQUEST: Message.MessageType
    TP_STATE_DELETE_RESPONSE: Message.MessageType
    TP_RECEIPT_ADD_DATA_REQUEST: Message.MessageType
    TP_RECEIPT_ADD_DATA_RESPONSE: Message.MessageType
    TP_EVENT_ADD_REQUEST: Message.MessageType
    TP_EVENT_ADD_RESPONSE: Message.MessageType
    CLIENT_EVENTS_SUBSCRIBE_REQUEST: Message.MessageType
    CLIENT_EVENTS_SUBSCRIBE_RESPONSE: Message.MessageType
    CLIENT_EVENTS_UNSUBSCRIBE_REQUEST: Message.MessageType
    CLIENT_EVENTS_UNSUBSCRIBE_RESPONSE: Message.MessageType
    CLIENT_EVENTS: Message.MessageType
    CLIENT_EVENTS_GET_REQUEST: Message.MessageType
    CLIENT_EVENTS_GET_RESPONSE: Message.MessageType
    PING_REQUEST: Message.MessageType
    PING_RESPONSE: Message.MessageType
    MESSAGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    CORRELATION_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    message_type: Message.MessageType
    correlation_id: str
    content: bytes
    def __init__(self, message_type: _Optional[_Union[Message.MessageType, str]] = ..., correlation_id: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...
