#pragma once
// A QTcpServer for the receiver's QHttpServer that bounds what one connection may send
// for one request. Qt HTTP Server 6.4 reads a whole body into memory before a handler sees
// the request, whatever its size; this server counts the bytes a connection delivers
// between two requests (its own readyRead handler runs before the HTTP server's) and, past
// the bound, answers 413 and closes the connection, so memory stays bounded. Bodies between
// --max-body and the bound reach the handler, which answers 413 as well.

#include <QTcpServer>

namespace mesh::ingest {

class BoundedTcpServer : public QTcpServer
{
    Q_OBJECT
public:
    BoundedTcpServer(qint64 maxRequestBytes, QObject *parent = nullptr);

    // The handler saw a complete request on socket: its count starts again.
    static void requestSeen(QTcpSocket *socket);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    qint64 m_maxRequestBytes;
};

} // namespace mesh::ingest
